-- Queries > Set Operations: EXCEPT ALL
-- oracle: VALUES ('u1'), ('u1'), ('u1'), ('u2'), ('u2'), ('u3'), ('u4'), ('u5'), ('u5')
SELECT user_id FROM orders EXCEPT ALL SELECT user_id FROM customers;
