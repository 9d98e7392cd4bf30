SET 'table.local-time-zone' = 'Europe/Berln';
CREATE TABLE t (ms BIGINT) WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
SELECT ms FROM t;
