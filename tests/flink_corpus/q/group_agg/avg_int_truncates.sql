-- Queries > Group Aggregation: AVG of an INT column is an INT
-- oracle: SELECT user_id, SUM(amount) / COUNT(amount) FROM orders GROUP BY user_id
SELECT user_id, AVG(amount) FROM orders GROUP BY user_id;
