-- EXPLAIN PLAN FOR an INSERT
CREATE TABLE bh (user_id STRING, n BIGINT) WITH ('connector' = 'blackhole');
EXPLAIN PLAN FOR INSERT INTO bh SELECT user_id, COUNT(*) FROM orders GROUP BY user_id;
