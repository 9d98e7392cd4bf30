CREATE TABLE t (user_id STRING, amount INT) WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
SELECT user_di, amount FROM t;
