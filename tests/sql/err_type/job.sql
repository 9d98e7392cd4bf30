CREATE TABLE t (s STRING, n INT) WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
SELECT s + n FROM t;
