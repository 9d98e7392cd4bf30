-- Formats > debezium-json for an updating result written to files
-- output: out
-- oracle: SELECT user_id, COUNT(*) FROM orders GROUP BY user_id
CREATE TABLE cdc_out (user_id STRING, n BIGINT) WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'debezium-json');
INSERT INTO cdc_out SELECT user_id, COUNT(*) FROM orders GROUP BY user_id;
