-- Queries > Joins > Regular Joins: RIGHT JOIN
-- oracle: SELECT c.name, o.order_id FROM customers c LEFT JOIN orders o ON o.user_id = c.user_id
SELECT c.name, o.order_id FROM orders o RIGHT JOIN customers c ON o.user_id = c.user_id;
