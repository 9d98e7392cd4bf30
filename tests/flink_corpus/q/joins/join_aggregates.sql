-- Queries > Joins: join of two updating aggregations
-- oracle: SELECT a.user_id, a.n, b.total FROM (SELECT user_id, COUNT(*) AS n FROM orders GROUP BY 1) a JOIN (SELECT user_id, SUM(amount) AS total FROM orders GROUP BY 1) b ON a.user_id = b.user_id
SELECT a.user_id, a.n, b.total FROM (SELECT user_id, COUNT(*) AS n FROM orders GROUP BY user_id) a JOIN (SELECT user_id, SUM(amount) AS total FROM orders GROUP BY user_id) b ON a.user_id = b.user_id;
