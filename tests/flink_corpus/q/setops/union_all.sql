-- Queries > Set Operations: UNION ALL
-- oracle: SELECT user_id FROM orders UNION ALL SELECT user_id FROM customers
SELECT user_id FROM orders UNION ALL SELECT user_id FROM customers;
