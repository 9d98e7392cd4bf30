-- UNION (without ALL): the distinct rows of both inputs, append-only for
-- append-only inputs, so a print sink of +I rows takes it; UNION ALL keeps
-- the duplicates.
CREATE TABLE d (k INT, v STRING) WITH ('connector' = 'print', 'print-identifier' = 'distinct');
CREATE TABLE a (k INT, v STRING) WITH ('connector' = 'print', 'print-identifier' = 'all');
INSERT INTO d SELECT * FROM (VALUES (1, 'a'), (2, 'b'), (1, 'a')) UNION SELECT * FROM (VALUES (2, 'b'), (3, 'c'));
INSERT INTO a SELECT * FROM (VALUES (1, 'a'), (2, 'b'), (1, 'a')) UNION ALL SELECT * FROM (VALUES (2, 'b'), (3, 'c'));
