-- Queries > Joins > Regular Joins: LEFT JOIN (changelog with NULL padding retracted)
-- oracle: SELECT o.order_id, c.name FROM orders o LEFT JOIN customers c ON o.user_id = c.user_id
SELECT o.order_id, c.name FROM orders o LEFT JOIN customers c ON o.user_id = c.user_id;
