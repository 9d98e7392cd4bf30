-- Queries > Group Aggregation: aggregate FILTER (WHERE ...)
-- oracle: SELECT user_id, SUM(CASE WHEN currency = 'EUR' THEN 1 ELSE 0 END), SUM(CASE WHEN currency = 'USD' THEN amount END) FROM orders GROUP BY user_id
SELECT user_id, COUNT(*) FILTER (WHERE currency = 'EUR'), SUM(amount) FILTER (WHERE currency = 'USD') FROM orders GROUP BY user_id;
