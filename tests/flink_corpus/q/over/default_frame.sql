-- Queries > Over Aggregation: no frame (RANGE UNBOUNDED PRECEDING by default)
-- oracle: SELECT order_id, AVG(price) OVER (PARTITION BY product ORDER BY order_time) FROM orders
SELECT order_id, AVG(price) OVER (PARTITION BY product ORDER BY order_time) FROM orders;
