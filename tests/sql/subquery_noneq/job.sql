-- Correlated subqueries related by non-equalities (t.x > o.y, alone or
-- beside equalities), decorrelated as Flink's planner (Calcite) does:
-- the subquery's aggregates over a join of its rows with the distinct
-- values of the outer columns its conditions name, grouped by those
-- values and LEFT-joined back to the outer rows on them. The result is a
-- changelog; the check folds it. Worked by hand:
--   orders (oid, cid, amount): (1,10,5) (2,20,15) (3,10,25) (4,30,35)
--     (5,NULL,45) (6,20,15); customers (cid, name): (10,alice) (20,bob)
--     (20,bobby) (40,dave) (NULL,nobody).
--   out_lt: the largest amount of the orders of lower customer ids:
--     alice (10) none -> NULL; bob and bobby (20) cid 10: 5, 25 -> 25;
--     dave (40) cids 10, 20, 30 -> 35; nobody (NULL) -> NULL.
--   out_two: the customer's orders above half its id (o.cid = c.cid AND
--     o.amount > c.cid / 2): alice (> 5) 25 -> 1; bob and bobby (> 10)
--     15, 15 -> 2; dave, nobody 0.
--   out_where: orders above the average of the earlier orders (INT AVG):
--     1 none; 2: 15 > 5; 3: 25 > 10; 4: 35 > 15; 5: 45 > 20; 6: 15 > 25
--     no -> 2, 3, 4, 5.
--   out_in: c.cid IN the customer ids of the orders above c.cid: alice
--     (> 10: cids 20, 10, 30, NULL, 20) TRUE; bob, bobby (> 20: 10, 30,
--     NULL) no 20 but a NULL: NULL; dave (> 40: NULL) NULL; nobody
--     (> NULL: no rows) FALSE.
--   out_single: the one customer whose id is above the order's by more
--     than 15: cid 10 and 20 -> dave (40); 30 -> none, NULL; NULL -> NULL.
--   out_agg_in: an aggregate as IN's x: each customer id's order count IN
--     the tenths of the higher customer ids: 10 (2 orders; 20, 20, 40 ->
--     2, 2, 4) TRUE; 20 (2; 40 -> 4) FALSE; 30 (1; 4) FALSE; NULL (1;
--     no rows) FALSE.
CREATE TABLE orders (oid INT, cid INT, amount INT) WITH (
  'connector' = 'filesystem', 'path' = 'orders.csv', 'format' = 'csv');
CREATE TABLE customers (cid INT, name STRING) WITH (
  'connector' = 'filesystem', 'path' = 'customers.csv', 'format' = 'csv');
CREATE TABLE out_lt (name STRING, m INT) WITH (
  'connector' = 'filesystem', 'path' = 'out_lt', 'format' = 'debezium-json');
CREATE TABLE out_two (name STRING, n BIGINT) WITH (
  'connector' = 'filesystem', 'path' = 'out_two', 'format' = 'debezium-json');
CREATE TABLE out_where (oid INT) WITH (
  'connector' = 'filesystem', 'path' = 'out_where', 'format' = 'debezium-json');
CREATE TABLE out_in (name STRING, v BOOLEAN) WITH (
  'connector' = 'filesystem', 'path' = 'out_in', 'format' = 'debezium-json');
CREATE TABLE out_single (oid INT, name STRING) WITH (
  'connector' = 'filesystem', 'path' = 'out_single', 'format' = 'debezium-json');
CREATE TABLE out_agg_in (cid INT, v BOOLEAN) WITH (
  'connector' = 'filesystem', 'path' = 'out_agg_in', 'format' = 'debezium-json');

EXECUTE STATEMENT SET BEGIN
  INSERT INTO out_lt SELECT c.name, (SELECT MAX(amount) FROM orders o WHERE o.cid < c.cid) AS m FROM customers c;
  INSERT INTO out_two SELECT c.name,
    (SELECT COUNT(*) FROM orders o WHERE o.cid = c.cid AND o.amount > c.cid / 2) AS n FROM customers c;
  INSERT INTO out_where SELECT oid FROM orders o
    WHERE amount > (SELECT AVG(amount) FROM orders o2 WHERE o2.oid < o.oid);
  INSERT INTO out_in SELECT c.name, c.cid IN (SELECT o.cid FROM orders o WHERE o.amount > c.cid) AS v
    FROM customers c;
  INSERT INTO out_single SELECT oid, (SELECT name FROM customers c WHERE c.cid > o.cid + 15) AS name
    FROM orders o;
  INSERT INTO out_agg_in SELECT cid, COUNT(*) IN (SELECT c.cid / 10 FROM customers c WHERE c.cid > o.cid) AS v
    FROM orders o GROUP BY cid;
END;
