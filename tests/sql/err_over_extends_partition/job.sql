CREATE TABLE t (k STRING, v INT, pt AS PROCTIME()) WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
SELECT k, SUM(v) OVER (w PARTITION BY v ORDER BY pt) FROM t WINDOW w AS (PARTITION BY k);
