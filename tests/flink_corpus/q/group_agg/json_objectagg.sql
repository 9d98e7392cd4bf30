-- Queries > Group Aggregation: JSON_OBJECTAGG
-- names: JSON_OBJECTAGG
-- oracle: VALUES ('u3', '{"4":"apple","8":"cherry"}')
SELECT user_id, JSON_OBJECTAGG(KEY CAST(order_id AS STRING) VALUE product) FROM orders WHERE user_id = 'u3' GROUP BY user_id;
