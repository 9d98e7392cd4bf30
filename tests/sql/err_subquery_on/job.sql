-- A subquery test is planned in WHERE, the SELECT list and HAVING (as
-- semi / anti joins or joined counts) and in an inner join's ON; in an outer
-- join's ON it runs when it reads only the side the join pads (a filter of
-- that side); one that reads the preserved side is refused where it stands.
CREATE TABLE orders (oid INT, cust INT, amount INT) WITH (
  'connector' = 'filesystem', 'path' = 'orders.csv', 'format' = 'csv');
CREATE TABLE customers (cid INT, name STRING) WITH (
  'connector' = 'filesystem', 'path' = 'customers.csv', 'format' = 'csv');
SELECT oid FROM orders o LEFT JOIN customers c
ON o.cust = c.cid AND EXISTS (SELECT * FROM customers d WHERE d.cid = o.amount);
