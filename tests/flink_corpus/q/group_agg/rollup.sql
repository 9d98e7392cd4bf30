-- Queries > Group Aggregation: ROLLUP with GROUPING()
-- oracle: SELECT currency, product, 0, COUNT(*) FROM orders GROUP BY 1, 2 UNION ALL SELECT currency, NULL, 1, COUNT(*) FROM orders GROUP BY 1 UNION ALL SELECT NULL, NULL, 1, COUNT(*) FROM orders
SELECT currency, product, GROUPING(product), COUNT(*) FROM orders GROUP BY ROLLUP (currency, product);
