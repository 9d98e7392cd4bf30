-- Queries > Over Aggregation: ROW_NUMBER() outside Top-N (refused in Flink streaming too)
-- flink-refuses
SELECT order_id, ROW_NUMBER() OVER (PARTITION BY user_id ORDER BY order_time) FROM orders;
