-- Queries > Set Operations: INTERSECT ALL
-- oracle: VALUES ('u1'), ('u1'), ('u2'), ('u2'), ('u3'), ('u3'), ('u4'), ('u4')
SELECT user_id FROM orders INTERSECT ALL (SELECT user_id FROM customers UNION ALL SELECT user_id FROM customers);
