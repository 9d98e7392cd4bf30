-- Queries > Over Aggregation: LAG
-- oracle: SELECT order_id, LAG(amount, 1, -1) OVER (PARTITION BY user_id ORDER BY order_time) FROM orders
SELECT order_id, LAG(amount, 1, -1) OVER (PARTITION BY user_id ORDER BY order_time) FROM orders;
