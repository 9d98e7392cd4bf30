-- The subquery of IN must select one column.
CREATE TABLE orders (oid INT, cust INT, amount INT) WITH (
  'connector' = 'filesystem', 'path' = 'orders.csv', 'format' = 'csv');
CREATE TABLE customers (cid INT, name STRING) WITH (
  'connector' = 'filesystem', 'path' = 'customers.csv', 'format' = 'csv');
SELECT oid FROM orders WHERE cust IN (SELECT cid, name FROM customers);
