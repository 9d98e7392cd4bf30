-- IN / EXISTS subqueries as regular (continuous) semi and anti joins, as
-- Flink plans them. A semi join emits a left row while it has at least one
-- match and retracts it when its last match goes; an anti join the
-- opposite. Which input's rows arrive first is up to the scheduler, so the
-- check folds each changelog into the table it describes. Worked by hand
-- (orders: oid, cust, amount; customers: cid, name - 20 twice, a NULL cid;
-- returns: oid, amount):
--   IN: orders of a known customer, once each however many match: 1 2 3 6.
--   NOT IN: customers holds a NULL cid, so cust NOT IN (...) is never TRUE.
--   NOT IN over the non-NULL cids (10, 20, 40): 4 (30); 5's cust is NULL,
--     and NULL NOT IN (non-empty) is not TRUE either.
--   EXISTS with a residual (a customer named other than 'bob', amount > 10
--     of the order): 2 and 6 (bobby), 3 (alice; 1 is hers but of 5).
--   NOT EXISTS: 4 (30 unknown), 5 (a NULL cust matches nothing).
--   NOT EXISTS with a condition on the order alone inside: orders of
--     amount <= 20 have no match at all: 1 2 6; and 4, 5 as above.
--   IN an aggregated subquery (customers with two names: 20): 2 6.
--   An updating left input (orders per customer): 10 -> 2, 20 -> 2.
--   Scopes: inside the subquery, oid and amount are returns_' columns
--     (they shadow orders'), o.oid is the enclosing query's: orders
--     returned at their own amount: 2 (15) and 5 (45); 7 is no order.
--   More shapes (out_more, tagged): EXISTS uncorrelated (customers is not
--     empty: all six); IN a comma join (customers of orders above 30:
--     cust 30 and NULL, no such customer: none); IN a UNION ALL (the cids
--     and 30: 1 2 3 4 6); a subquery with its own IN (customers that have
--     an order above 20: 10; their orders: 1 3).
CREATE TABLE orders (oid INT, cust INT, amount INT) WITH (
  'connector' = 'filesystem', 'path' = 'orders.csv', 'format' = 'csv');
CREATE TABLE customers (cid INT, name STRING) WITH (
  'connector' = 'filesystem', 'path' = 'customers.csv', 'format' = 'csv');
CREATE TABLE returns_ (oid INT, amount INT) WITH (
  'connector' = 'filesystem', 'path' = 'returns.csv', 'format' = 'csv');
CREATE TABLE out_in (oid INT) WITH ('connector' = 'filesystem', 'path' = 'out_in', 'format' = 'debezium-json');
CREATE TABLE out_not_in (oid INT) WITH ('connector' = 'filesystem', 'path' = 'out_not_in', 'format' = 'debezium-json');
CREATE TABLE out_not_in_nn (oid INT) WITH ('connector' = 'filesystem', 'path' = 'out_not_in_nn', 'format' = 'debezium-json');
CREATE TABLE out_exists (oid INT) WITH ('connector' = 'filesystem', 'path' = 'out_exists', 'format' = 'debezium-json');
CREATE TABLE out_not_exists (oid INT) WITH ('connector' = 'filesystem', 'path' = 'out_not_exists', 'format' = 'debezium-json');
CREATE TABLE out_not_exists_cond (oid INT) WITH ('connector' = 'filesystem', 'path' = 'out_not_exists_cond', 'format' = 'debezium-json');
CREATE TABLE out_in_agg (oid INT) WITH ('connector' = 'filesystem', 'path' = 'out_in_agg', 'format' = 'debezium-json');
CREATE TABLE out_in_updating (cust INT, n BIGINT) WITH ('connector' = 'filesystem', 'path' = 'out_in_updating', 'format' = 'debezium-json');
CREATE TABLE out_more (q STRING, oid INT) WITH ('connector' = 'filesystem', 'path' = 'out_more', 'format' = 'debezium-json');
CREATE TABLE out_scope (oid INT) WITH ('connector' = 'filesystem', 'path' = 'out_scope', 'format' = 'debezium-json');

EXECUTE STATEMENT SET BEGIN
  INSERT INTO out_in SELECT oid FROM orders WHERE cust IN (SELECT cid FROM customers);
  INSERT INTO out_not_in SELECT oid FROM orders WHERE cust NOT IN (SELECT cid FROM customers);
  INSERT INTO out_not_in_nn SELECT oid FROM orders
    WHERE NOT cust IN (SELECT cid FROM customers WHERE cid IS NOT NULL);
  INSERT INTO out_exists SELECT oid FROM orders o
    WHERE EXISTS (SELECT * FROM customers c WHERE c.cid = o.cust AND c.name <> 'bob' AND o.amount > 10);
  INSERT INTO out_not_exists SELECT oid FROM orders o
    WHERE NOT EXISTS (SELECT 1 FROM customers c WHERE c.cid = o.cust);
  INSERT INTO out_not_exists_cond SELECT oid FROM orders o
    WHERE NOT EXISTS (SELECT 1 FROM customers c WHERE c.cid = o.cust AND o.amount > 20);
  INSERT INTO out_in_agg SELECT oid FROM orders
    WHERE cust IN (SELECT cid FROM customers GROUP BY cid HAVING COUNT(*) > 1);
  INSERT INTO out_in_updating SELECT cust, n FROM (SELECT cust, COUNT(*) AS n FROM orders GROUP BY cust)
    WHERE cust IN (SELECT cid FROM customers);
  INSERT INTO out_more SELECT 'exists', oid FROM orders WHERE EXISTS (SELECT * FROM customers);
  INSERT INTO out_more SELECT 'comma', oid FROM orders
    WHERE cust IN (SELECT c.cid FROM customers c, orders o2 WHERE c.cid = o2.cust AND o2.amount > 30);
  INSERT INTO out_more SELECT 'union', oid FROM orders WHERE cust IN (SELECT cid FROM customers UNION ALL SELECT 30);
  INSERT INTO out_more SELECT 'nested', oid FROM orders o
    WHERE EXISTS (SELECT * FROM customers c WHERE c.cid = o.cust AND c.cid IN (SELECT cust FROM orders WHERE amount > 20));
  INSERT INTO out_scope SELECT oid FROM orders o
    WHERE amount IN (SELECT amount FROM returns_ WHERE oid = o.oid);
END;
