-- A subquery test is planned in WHERE, the SELECT list and HAVING (as
-- semi / anti joins or joined counts) and in an inner join's ON; in an outer
-- join's ON it is refused where it stands, naming the construct.
CREATE TABLE orders (oid INT, cust INT, amount INT) WITH (
  'connector' = 'filesystem', 'path' = 'orders.csv', 'format' = 'csv');
CREATE TABLE customers (cid INT, name STRING) WITH (
  'connector' = 'filesystem', 'path' = 'customers.csv', 'format' = 'csv');
SELECT oid FROM orders o LEFT JOIN customers c
ON o.cust = c.cid AND EXISTS (SELECT * FROM customers d WHERE d.cid = o.amount);
