-- Queries > Subqueries: a correlated scalar subquery whose own IN subquery reads the outermost query
-- oracle: SELECT c.name, (SELECT COUNT(*) FROM orders o WHERE o.user_id = c.user_id AND o.order_id IN (SELECT s.order_id FROM shipments s WHERE s.ship_id > 100 AND c.country <> 'JP')) FROM customers c
SELECT c.name, (SELECT COUNT(*) FROM orders o WHERE o.user_id = c.user_id
  AND o.order_id IN (SELECT s.order_id FROM shipments s WHERE s.ship_id > 100 AND c.country <> 'JP')) AS n
FROM customers c;
