-- Queries > Hints: STATE_TTL on a group aggregation
-- oracle: SELECT user_id, COUNT(*) FROM orders GROUP BY user_id
SELECT /*+ STATE_TTL('orders' = '1d') */ user_id, COUNT(*) FROM orders GROUP BY user_id;
