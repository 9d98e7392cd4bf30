-- Queries > Joins > Regular Joins: INNER JOIN on equality
-- oracle: SELECT o.order_id, c.name FROM orders o JOIN customers c ON o.user_id = c.user_id
SELECT o.order_id, c.name FROM orders o JOIN customers c ON o.user_id = c.user_id;
