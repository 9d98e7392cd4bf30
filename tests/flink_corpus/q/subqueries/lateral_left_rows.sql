-- Queries > Subqueries: LEFT JOIN LATERAL derived table ON TRUE
-- oracle: SELECT c.name, o.order_id FROM customers c LEFT JOIN orders o ON o.user_id = c.user_id AND o.amount > 1
SELECT c.name, x.order_id FROM customers c
LEFT JOIN LATERAL (SELECT o.order_id FROM orders o WHERE o.user_id = c.user_id AND o.amount > 1) AS x ON TRUE;
