-- A LATERAL derived table with HAVING over an aggregate without GROUP BY:
-- one row per customer even over no orders (COUNT 0), which HAVING then
-- filters; grouping by the correlation key would drop the customers
-- without orders, so weir refuses it at the HAVING.
CREATE TABLE orders (oid INT, cid INT, amount INT) WITH (
  'connector' = 'filesystem', 'path' = 'orders.csv', 'format' = 'csv');
CREATE TABLE customers (cid INT, name STRING) WITH (
  'connector' = 'filesystem', 'path' = 'customers.csv', 'format' = 'csv');
SELECT c.name, l.n FROM customers c,
  LATERAL (SELECT COUNT(*) AS n FROM orders o WHERE o.cid = c.cid HAVING COUNT(*) < 5) AS l;
