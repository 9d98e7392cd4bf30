-- Queries > Over Aggregation: LEAD (refused in streaming mode by Flink too)
-- flink-refuses
SELECT order_id, LEAD(amount) OVER (PARTITION BY user_id ORDER BY order_time) FROM orders;
