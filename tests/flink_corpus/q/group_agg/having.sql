-- Queries > Group Aggregation: HAVING
-- oracle: SELECT user_id, SUM(amount) FROM orders GROUP BY user_id HAVING SUM(amount) > 6
SELECT user_id, SUM(amount) FROM orders GROUP BY user_id HAVING SUM(amount) > 6;
