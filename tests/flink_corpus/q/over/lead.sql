-- Queries > Over Aggregation: LEAD (refused in streaming mode by Flink too)
SELECT order_id, LEAD(amount) OVER (PARTITION BY user_id ORDER BY order_time) FROM orders;
