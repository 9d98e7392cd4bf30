-- Queries > Group Aggregation: JSON_ARRAYAGG
-- oracle: VALUES ('u4', '["durian","banana"]')
SELECT user_id, JSON_ARRAYAGG(product) FROM orders WHERE user_id = 'u4' GROUP BY user_id;
