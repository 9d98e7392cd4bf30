-- Inner join of two append-only files: an append-only result. The keys
-- are INT on one side and BIGINT on the other (cast to a common type),
-- several rows match on both sides, NULL keys match nothing, and a WHERE
-- and a projection sit above the join.
CREATE TABLE orders (oid INT, cust INT, amount INT) WITH (
  'connector' = 'filesystem', 'path' = 'orders.csv', 'format' = 'csv');
CREATE TABLE customers (cid BIGINT, name STRING) WITH (
  'connector' = 'filesystem', 'path' = 'customers.csv', 'format' = 'csv');

SELECT o.oid, c.name, amount * 2 AS twice
FROM orders AS o JOIN customers c ON o.cust = c.cid
WHERE o.amount < 30;

-- The comma form: the WHERE conjuncts become the join condition.
CREATE TABLE payments (oid INT, method STRING) WITH (
  'connector' = 'filesystem', 'path' = 'payments.csv', 'format' = 'csv');
SELECT o.oid, c.name, p.method FROM orders o, customers c, payments p
WHERE o.cust = c.cid AND p.oid = o.oid AND c.name <> 'bobby';

-- Three inputs, left-deep, with a subquery on the right.
SELECT o.oid, c.name, p.method
FROM orders o
  JOIN customers c ON o.cust = c.cid
  JOIN (SELECT oid AS poid, method FROM payments WHERE method = 'cash') p ON p.poid = o.oid;
