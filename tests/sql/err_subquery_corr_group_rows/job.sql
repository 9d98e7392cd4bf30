-- A correlated scalar subquery with GROUP BY that gives two rows for an
-- outer row's value fails the job while running, naming the subquery (as
-- Flink's SINGLE_VALUE): cust 10 has orders of two amounts (5, 25), so
-- its groups by amount are two rows.
CREATE TABLE orders (oid INT, cust INT, amount INT) WITH (
  'connector' = 'filesystem', 'path' = 'orders.csv', 'format' = 'csv');
SELECT oid, (SELECT COUNT(*) FROM orders p WHERE p.cust = o.cust GROUP BY p.amount) AS n FROM orders o;
