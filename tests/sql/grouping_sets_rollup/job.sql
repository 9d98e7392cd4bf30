-- GROUP BY ROLLUP on an updating aggregation: one result per grouping set
-- (region, product), (region), (); a column not in the set is NULL, and
-- GROUPING / GROUPING_ID say which columns are aggregated away.
CREATE TABLE orders (region STRING, product STRING, amount INT)
WITH ('connector' = 'filesystem', 'path' = 'orders.csv', 'format' = 'csv');

SELECT region, product, SUM(amount) AS total, GROUPING(region) AS gr,
       GROUPING_ID(region, product) AS gid
FROM orders
GROUP BY ROLLUP(region, product);
