-- Queries > ORDER BY: ascending time attribute (temporal sort)
-- ordered
-- oracle: SELECT order_id, order_time FROM orders ORDER BY order_time
SELECT order_id, order_time FROM orders ORDER BY order_time;
