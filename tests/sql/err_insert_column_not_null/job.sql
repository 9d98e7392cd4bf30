-- A NOT NULL column left out of the list has no default value to take
-- (Flink: "Column 'b' has no default value and does not allow NULLs").
CREATE TABLE src (a STRING, n INT) WITH ('connector' = 'filesystem', 'path' = 'in.json', 'format' = 'json');
CREATE TABLE p (a STRING, b INT NOT NULL) WITH ('connector' = 'print');
INSERT INTO p (a) SELECT a FROM src;
