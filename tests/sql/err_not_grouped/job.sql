CREATE TABLE t (a STRING, b INT) WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
SELECT a, b, COUNT(*) FROM t GROUP BY a;
