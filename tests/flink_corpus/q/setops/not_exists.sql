-- Queries > Set Operations: correlated NOT EXISTS
-- oracle: SELECT order_id FROM orders o WHERE NOT EXISTS (SELECT * FROM shipments s WHERE s.order_id = o.order_id)
SELECT order_id FROM orders o WHERE NOT EXISTS (SELECT * FROM shipments s WHERE s.order_id = o.order_id);
