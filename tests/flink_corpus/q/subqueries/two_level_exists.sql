-- Queries > Subqueries: a subquery inside EXISTS reads the outermost query (correlation two levels up)
-- oracle: SELECT c.name FROM customers c WHERE EXISTS (SELECT 1 FROM orders o WHERE o.user_id = c.user_id AND o.order_id IN (SELECT s.order_id FROM shipments s WHERE s.ship_id >= 100 + LENGTH(c.name)))
SELECT c.name FROM customers c WHERE EXISTS (SELECT 1 FROM orders o WHERE o.user_id = c.user_id
  AND o.order_id IN (SELECT s.order_id FROM shipments s WHERE s.ship_id >= 100 + CHAR_LENGTH(c.name)));
