-- Queries > Group Aggregation: APPROX_COUNT_DISTINCT
-- oracle: SELECT currency, COUNT(DISTINCT product) FROM orders GROUP BY currency
SELECT currency, APPROX_COUNT_DISTINCT(product) FROM orders GROUP BY currency;
