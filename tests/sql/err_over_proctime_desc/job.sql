CREATE TABLE t (k STRING, v INT, pt AS PROCTIME()) WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
SELECT k, SUM(v) OVER (PARTITION BY k ORDER BY pt DESC) FROM t;
