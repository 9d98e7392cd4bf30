-- Queries > Subqueries: LATERAL derived table
-- oracle: SELECT c.user_id, (SELECT COUNT(*) FROM orders o WHERE o.user_id = c.user_id) FROM customers c
SELECT c.user_id, x.n FROM customers c, LATERAL (SELECT COUNT(*) AS n FROM orders o WHERE o.user_id = c.user_id) x;
