-- Queries > INSERT INTO ... VALUES
-- oracle: VALUES (1, 'a'), (2, 'b')
CREATE TABLE sink2 (k INT, s STRING) WITH ('connector' = 'print');
INSERT INTO sink2 VALUES (1, 'a'), (2, 'b');
