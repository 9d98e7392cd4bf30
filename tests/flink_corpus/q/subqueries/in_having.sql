-- Queries > Subqueries: IN subquery in HAVING
-- oracle: SELECT user_id, COUNT(*) FROM orders GROUP BY user_id HAVING user_id IN (SELECT user_id FROM customers WHERE country = 'DE')
SELECT user_id, COUNT(*) FROM orders GROUP BY user_id HAVING user_id IN (SELECT user_id FROM customers WHERE country = 'DE');
