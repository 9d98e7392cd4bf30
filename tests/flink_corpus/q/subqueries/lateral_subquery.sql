-- Queries > Subqueries: LATERAL derived table
-- names: LATERAL
SELECT c.user_id, x.n FROM customers c, LATERAL (SELECT COUNT(*) AS n FROM orders o WHERE o.user_id = c.user_id) x;
