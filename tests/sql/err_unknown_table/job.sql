CREATE TABLE clicks (user_id STRING) WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
SELECT user_id FROM clikcs;
