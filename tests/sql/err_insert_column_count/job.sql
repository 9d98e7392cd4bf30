-- The query gives one column for each listed column.
CREATE TABLE src (a STRING, n INT) WITH ('connector' = 'filesystem', 'path' = 'in.json', 'format' = 'json');
CREATE TABLE p (a STRING, b INT, c INT) WITH ('connector' = 'print');
INSERT INTO p (b, a) SELECT n, a, n FROM src;
