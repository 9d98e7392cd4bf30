-- Queries > Set Operations: INTERSECT
-- oracle: SELECT user_id FROM orders INTERSECT SELECT user_id FROM customers
SELECT user_id FROM orders INTERSECT SELECT user_id FROM customers;
