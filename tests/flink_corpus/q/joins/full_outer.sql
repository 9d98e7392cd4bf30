-- Queries > Joins > Regular Joins: FULL OUTER JOIN
-- oracle: SELECT o.user_id, c.user_id FROM (SELECT DISTINCT user_id FROM orders) o LEFT JOIN customers c ON o.user_id = c.user_id UNION ALL SELECT NULL, c.user_id FROM customers c WHERE c.user_id NOT IN (SELECT user_id FROM orders)
SELECT o.user_id, c.user_id FROM (SELECT DISTINCT user_id FROM orders) o FULL OUTER JOIN customers c ON o.user_id = c.user_id;
