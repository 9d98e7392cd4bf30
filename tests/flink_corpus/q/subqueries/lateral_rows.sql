-- Queries > Subqueries: correlated LATERAL derived table of rows
-- oracle: SELECT c.name, o.product, o.amount * 2 FROM customers c JOIN orders o ON o.user_id = c.user_id
SELECT c.name, x.product, x.twice FROM customers c,
LATERAL (SELECT o.product, o.amount * 2 AS twice FROM orders o WHERE o.user_id = c.user_id) AS x;
