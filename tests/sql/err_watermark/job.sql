CREATE TABLE t (ts TIMESTAMP(3), WATERMARK FOR ts AS ts + INTERVAL '1' SECOND)
WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
SELECT ts FROM t;
