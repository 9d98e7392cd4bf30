-- Uncorrelated scalar subqueries, as Flink's streaming planner runs them:
-- the one row of a global aggregation joined to every row (a LEFT join on
-- no key, in one subtask), so the value is NULL until the aggregation has
-- a row, and every row is updated when it changes. The check folds each
-- changelog into its final table. Worked by hand (orders: amounts 5, 15,
-- 25, 35, 45, 15: average 140 / 6 = 23 as an INT; maximum cid 40):
--   amount above the average: 3 (25), 4 (35), 5 (45).
--   each order with the maximum cid: (1, 40) ... (6, 40).
--   SELECT * hides the subquery's column: the orders of cust < max cid.
--   over an empty table the value stays NULL: no amount > NULL.
CREATE TABLE orders (oid INT, cust INT, amount INT) WITH (
  'connector' = 'filesystem', 'path' = 'orders.csv', 'format' = 'csv');
CREATE TABLE customers (cid INT, name STRING) WITH (
  'connector' = 'filesystem', 'path' = 'customers.csv', 'format' = 'csv');
CREATE TABLE nothing (x INT) WITH (
  'connector' = 'filesystem', 'path' = 'none.csv', 'format' = 'csv');
CREATE TABLE out_above_avg (oid INT, amount INT) WITH ('connector' = 'filesystem', 'path' = 'out_above_avg', 'format' = 'debezium-json');
CREATE TABLE out_share (oid INT, m INT) WITH ('connector' = 'filesystem', 'path' = 'out_share', 'format' = 'debezium-json');
CREATE TABLE out_star (oid INT, cust INT, amount INT) WITH ('connector' = 'filesystem', 'path' = 'out_star', 'format' = 'debezium-json');
CREATE TABLE out_empty (oid INT) WITH ('connector' = 'filesystem', 'path' = 'out_empty', 'format' = 'debezium-json');

EXECUTE STATEMENT SET BEGIN
  INSERT INTO out_above_avg SELECT oid, amount FROM orders WHERE amount > (SELECT AVG(amount) FROM orders);
  INSERT INTO out_share SELECT oid, (SELECT MAX(cid) FROM customers) FROM orders;
  INSERT INTO out_star SELECT * FROM orders WHERE cust < (SELECT MAX(cid) FROM customers);
  INSERT INTO out_empty SELECT oid FROM orders WHERE amount > (SELECT MIN(x) FROM nothing);
END;
