-- Queries > Group Aggregation: COUNT/SUM/MIN/MAX per key (updating result)
-- oracle: SELECT user_id, COUNT(*), SUM(amount), MIN(price), MAX(price) FROM orders GROUP BY user_id
SELECT user_id, COUNT(*), SUM(amount), MIN(price), MAX(price) FROM orders GROUP BY user_id;
