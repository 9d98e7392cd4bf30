-- Queries > Subqueries: correlated scalar subquery in SELECT
-- oracle: SELECT o.order_id, (SELECT COUNT(*) FROM shipments s WHERE s.order_id = o.order_id) FROM orders o
SELECT o.order_id, (SELECT COUNT(*) FROM shipments s WHERE s.order_id = o.order_id) FROM orders o;
