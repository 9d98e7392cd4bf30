-- Queries > Over Aggregation: ORDER BY a processing-time attribute
-- oracle: SELECT order_id, COUNT(*) OVER (PARTITION BY order_id) FROM orders
SELECT order_id, COUNT(*) OVER (PARTITION BY order_id ORDER BY pt ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM orders_pt;
