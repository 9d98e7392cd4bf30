-- Queries > Set Operations: correlated EXISTS
-- oracle: SELECT order_id FROM orders o WHERE EXISTS (SELECT * FROM shipments s WHERE s.order_id = o.order_id)
SELECT order_id FROM orders o WHERE EXISTS (SELECT * FROM shipments s WHERE s.order_id = o.order_id);
