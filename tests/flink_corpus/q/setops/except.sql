-- Queries > Set Operations: EXCEPT
-- oracle: SELECT user_id FROM customers EXCEPT SELECT user_id FROM orders
SELECT user_id FROM customers EXCEPT SELECT user_id FROM orders;
