-- Queries > Group Aggregation: GROUPING SETS
-- oracle: SELECT user_id, product, COUNT(*) FROM orders GROUP BY 1, 2 UNION ALL SELECT user_id, NULL, COUNT(*) FROM orders GROUP BY 1 UNION ALL SELECT NULL, NULL, COUNT(*) FROM orders
SELECT user_id, product, COUNT(*) FROM orders GROUP BY GROUPING SETS ((user_id, product), (user_id), ());
