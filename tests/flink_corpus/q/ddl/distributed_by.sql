-- CREATE TABLE ... DISTRIBUTED BY HASH(k) INTO n BUCKETS (Flink 2.0)
CREATE TABLE dist_out (user_id STRING, n BIGINT) DISTRIBUTED BY HASH(user_id) INTO 4 BUCKETS WITH ('connector' = 'blackhole');
INSERT INTO dist_out SELECT user_id, COUNT(*) FROM orders GROUP BY user_id;
