-- Each column of USING must be one column of each input.
CREATE TABLE orders (oid INT, cid INT, amount INT) WITH (
  'connector' = 'filesystem', 'path' = 'orders.csv', 'format' = 'csv');
CREATE TABLE customers (cid INT, name STRING) WITH (
  'connector' = 'filesystem', 'path' = 'customers.csv', 'format' = 'csv');
SELECT * FROM orders o JOIN customers c USING (cid, amount);
