-- Queries > Group Aggregation: COUNT(DISTINCT ...)
-- oracle: SELECT currency, COUNT(DISTINCT user_id) FROM orders GROUP BY currency
SELECT currency, COUNT(DISTINCT user_id) FROM orders GROUP BY currency;
