-- Queries > SELECT with searched CASE
-- oracle: SELECT order_id, CASE WHEN amount >= 5 THEN 'bulk' WHEN amount IS NULL THEN 'unknown' ELSE 'single' END FROM orders
SELECT order_id, CASE WHEN amount >= 5 THEN 'bulk' WHEN amount IS NULL THEN 'unknown' ELSE 'single' END AS kind FROM orders;
