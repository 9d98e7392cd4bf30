-- Queries > Group Aggregation: ARRAY_AGG
-- names: ARRAY_AGG
-- oracle: VALUES ('u3', '[apple, cherry]'), ('u4', '[durian, banana]')
SELECT user_id, ARRAY_AGG(product) FROM orders WHERE user_id IN ('u3', 'u4') GROUP BY user_id;
