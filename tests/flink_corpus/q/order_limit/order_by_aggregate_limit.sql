-- Queries > LIMIT: ORDER BY an aggregate with LIMIT over a group aggregation
-- oracle: SELECT product, SUM(amount) AS s FROM orders GROUP BY product ORDER BY s DESC LIMIT 2
SELECT product, SUM(amount) AS s FROM orders GROUP BY product ORDER BY s DESC LIMIT 2;
