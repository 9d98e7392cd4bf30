-- Queries > Group Aggregation: CUBE
-- oracle: SELECT currency, product, SUM(amount) FROM orders GROUP BY 1, 2 UNION ALL SELECT currency, NULL, SUM(amount) FROM orders GROUP BY 1 UNION ALL SELECT NULL, product, SUM(amount) FROM orders GROUP BY 2 UNION ALL SELECT NULL, NULL, SUM(amount) FROM orders
SELECT currency, product, SUM(amount) FROM orders GROUP BY CUBE (currency, product);
