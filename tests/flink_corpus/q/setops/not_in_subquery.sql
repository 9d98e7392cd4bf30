-- Queries > Set Operations: NOT IN (subquery)
-- oracle: SELECT order_id FROM orders WHERE user_id NOT IN (SELECT user_id FROM customers)
SELECT order_id FROM orders WHERE user_id NOT IN (SELECT user_id FROM customers);
