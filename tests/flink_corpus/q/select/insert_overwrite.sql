-- Queries > INSERT OVERWRITE (batch-only in Flink; a streaming job refuses it)
-- flink-refuses
CREATE TABLE fs_out (order_id BIGINT) WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'csv');
INSERT OVERWRITE fs_out SELECT order_id FROM orders;
