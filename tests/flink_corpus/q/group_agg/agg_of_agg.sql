-- Queries > Group Aggregation over an updating aggregation (retractions)
-- oracle: SELECT cnt, COUNT(*) FROM (SELECT user_id, COUNT(*) AS cnt FROM orders GROUP BY user_id) GROUP BY cnt
SELECT cnt, COUNT(*) FROM (SELECT user_id, COUNT(*) AS cnt FROM orders GROUP BY user_id) GROUP BY cnt;
