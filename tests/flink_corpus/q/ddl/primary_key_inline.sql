-- CREATE TABLE: inline column PRIMARY KEY NOT ENFORCED
-- oracle: SELECT user_id, COUNT(*) FROM orders GROUP BY user_id
CREATE TABLE pk_sink (user_id STRING PRIMARY KEY NOT ENFORCED, n BIGINT) WITH ('connector' = 'print');
INSERT INTO pk_sink SELECT user_id, COUNT(*) FROM orders GROUP BY user_id;
