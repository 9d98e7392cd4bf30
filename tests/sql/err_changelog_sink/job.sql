CREATE TABLE clicks (user_id STRING) WITH ('connector' = 'filesystem', 'path' = 'c.csv', 'format' = 'csv');
CREATE TABLE out_csv (user_id STRING, n BIGINT) WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'csv');
INSERT INTO out_csv SELECT user_id, COUNT(*) FROM clicks GROUP BY user_id;
