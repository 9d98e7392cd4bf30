CREATE TABLE t (a INT) WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
SELECT a FROM t WHERE a > ;
