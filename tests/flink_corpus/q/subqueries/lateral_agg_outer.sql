-- Queries > Subqueries: a LATERAL derived table aggregating an expression of the row before it
-- oracle: SELECT c.name, (SELECT SUM(o.amount * LENGTH(c.name)) FROM orders o WHERE o.user_id = c.user_id) FROM customers c
SELECT c.name, x.s FROM customers c,
LATERAL (SELECT SUM(o.amount * CHAR_LENGTH(c.name)) AS s FROM orders o WHERE o.user_id = c.user_id) AS x;
