-- Queries > Over Aggregation: arithmetic over an OVER result
-- oracle: SELECT order_id, amount * 100 / SUM(amount) OVER (PARTITION BY user_id ORDER BY order_time) FROM orders WHERE amount IS NOT NULL
SELECT order_id, amount * 100 / SUM(amount) OVER (PARTITION BY user_id ORDER BY order_time) FROM orders WHERE amount IS NOT NULL;
