CREATE TABLE t (s STRING) WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
SELECT SUBSTR1NG(s, 1) FROM t;
