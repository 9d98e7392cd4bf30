-- CREATE TABLE ... PARTITIONED BY with a filesystem sink
-- output: out
-- oracle: SELECT order_id, currency FROM orders
CREATE TABLE part_out (order_id BIGINT, currency STRING) PARTITIONED BY (currency) WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'json');
INSERT INTO part_out SELECT order_id, currency FROM orders;
