-- INSERT INTO ... PARTITION (k = 'v')
-- output: out
-- oracle: SELECT order_id, '2024-01-01' FROM orders
CREATE TABLE part_out (order_id BIGINT, dt STRING) PARTITIONED BY (dt) WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'csv');
INSERT INTO part_out PARTITION (dt = '2024-01-01') SELECT order_id FROM orders;
