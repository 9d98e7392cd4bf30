-- CREATE TABLE: PRIMARY KEY ... NOT ENFORCED on a sink (upsert into print)
-- oracle: SELECT user_id, COUNT(*) FROM orders GROUP BY user_id
CREATE TABLE pk_sink (user_id STRING, n BIGINT, PRIMARY KEY (user_id) NOT ENFORCED) WITH ('connector' = 'print');
INSERT INTO pk_sink SELECT user_id, COUNT(*) FROM orders GROUP BY user_id;
