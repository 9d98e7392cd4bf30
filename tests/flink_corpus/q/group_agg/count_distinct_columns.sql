-- Queries > Group Aggregation: COUNT(DISTINCT expression1, expression2) counts the distinct pairs where neither is NULL
-- oracle: SELECT currency, COUNT(DISTINCT user_id || '|' || product) FROM orders GROUP BY currency
SELECT currency, COUNT(DISTINCT user_id, product) FROM orders GROUP BY currency;
