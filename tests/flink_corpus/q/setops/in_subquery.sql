-- Queries > Set Operations: IN (subquery)
-- oracle: SELECT order_id FROM orders WHERE user_id IN (SELECT user_id FROM customers WHERE country = 'DE')
SELECT order_id FROM orders WHERE user_id IN (SELECT user_id FROM customers WHERE country = 'DE');
