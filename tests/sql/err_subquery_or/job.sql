-- An IN / EXISTS subquery is a semi or anti join only as a WHERE
-- condition ANDed with the others; under OR it is refused where it stands.
CREATE TABLE orders (oid INT, cust INT, amount INT) WITH (
  'connector' = 'filesystem', 'path' = 'orders.csv', 'format' = 'csv');
CREATE TABLE customers (cid INT, name STRING) WITH (
  'connector' = 'filesystem', 'path' = 'customers.csv', 'format' = 'csv');
SELECT oid FROM orders o
WHERE o.amount > 20 OR EXISTS (SELECT * FROM customers c WHERE c.cid = o.cust);
