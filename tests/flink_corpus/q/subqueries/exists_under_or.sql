-- Queries > Subqueries: EXISTS under OR (a value, not a semi join)
-- oracle: SELECT order_id FROM orders o WHERE amount > 8 OR EXISTS (SELECT 1 FROM shipments s WHERE s.order_id = o.order_id)
SELECT order_id FROM orders o WHERE amount > 8 OR EXISTS (SELECT * FROM shipments s WHERE s.order_id = o.order_id);
