-- Queries > Over Aggregation: RANGE UNBOUNDED PRECEDING (running total)
-- oracle: SELECT order_id, SUM(price) OVER (ORDER BY order_time) FROM orders
SELECT order_id, SUM(price) OVER (ORDER BY order_time RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM orders;
