CREATE TABLE t (n INT) WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
SELECT n FROM t WHERE SUM(n) > 1;
