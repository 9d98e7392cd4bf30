-- Queries > Subqueries: correlated scalar subquery related by an inequality
-- oracle: SELECT o.order_id, (SELECT COUNT(*) FROM orders p WHERE p.order_time < o.order_time) FROM orders o
SELECT o.order_id, (SELECT COUNT(*) FROM orders p WHERE p.order_time < o.order_time) FROM orders o;
