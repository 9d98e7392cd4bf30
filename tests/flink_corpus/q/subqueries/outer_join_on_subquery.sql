-- Queries > Subqueries: a subquery in an outer join's ON
-- oracle: SELECT o.order_id, c.name FROM orders o LEFT JOIN customers c ON o.user_id = c.user_id AND c.country IN (SELECT country FROM customers WHERE user_id = 'u1')
SELECT o.order_id, c.name FROM orders o LEFT JOIN customers c ON o.user_id = c.user_id AND c.country IN (SELECT country FROM customers WHERE user_id = 'u1');
