-- Connectors > FileSystem sink, json format
-- output: out
-- oracle: SELECT order_id, product FROM orders
CREATE TABLE fs_out (order_id BIGINT, product STRING) WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'json');
INSERT INTO fs_out SELECT order_id, product FROM orders;
