-- MIN, MAX, COUNT(DISTINCT) and SUM(DISTINCT) of a DECIMAL(38, 2) over a
-- changelog: values past 18 digits, negative, NULL; the minimum goes back
-- to the value below it when it is updated away, and a value leaves the
-- distinct sum with its last occurrence.
SET 'weir.batch-size' = '1';
CREATE TABLE orders (id INT, cust STRING, amount DECIMAL(38, 2)) WITH (
  'connector' = 'filesystem', 'path' = 'orders.json', 'format' = 'debezium-json');

SELECT cust, MIN(amount) AS mn, MAX(amount) AS mx, COUNT(DISTINCT amount) AS cd,
       SUM(DISTINCT amount) AS sd, COUNT(*) AS n
FROM orders GROUP BY cust;
