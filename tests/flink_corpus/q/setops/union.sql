-- Queries > Set Operations: UNION (distinct)
-- oracle: SELECT user_id FROM orders UNION SELECT user_id FROM customers
SELECT user_id FROM orders UNION SELECT user_id FROM customers;
