-- Queries > Group Aggregation: SUM(DISTINCT) and AVG(DISTINCT)
-- oracle: SELECT product, SUM(DISTINCT amount) FROM orders GROUP BY product
SELECT product, SUM(DISTINCT amount) FROM orders GROUP BY product;
