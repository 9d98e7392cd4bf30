-- Functions > Grouping: GROUPING and GROUPING_ID in HAVING
-- oracle: SELECT currency, COUNT(*) FROM orders GROUP BY currency
SELECT currency, COUNT(*) FROM orders GROUP BY ROLLUP (currency) HAVING GROUPING(currency) = 0;
