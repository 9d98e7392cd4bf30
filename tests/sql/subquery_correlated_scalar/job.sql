-- Correlated scalar subqueries, decorrelated as Flink's planner does: the
-- subquery's aggregates grouped by the inner side of its correlation
-- equalities, LEFT-joined to the outer rows on them, its value computed
-- over the joined row. An outer row without inner rows sees the aggregates
-- of no rows: COUNT 0, the others NULL (a NULL key matches no row). The
-- result is a changelog; the check folds it. Worked by hand:
--   orders (oid, cid, amount): (1,10,5) (2,20,15) (3,10,25) (4,30,35)
--     (5,NULL,45) (6,20,15); customers (cid, name): (10,alice) (20,bob)
--     (20,bobby) (40,dave) (NULL,nobody).
--   out_max: the largest amount of the order's customer: cid 10 -> 25,
--     20 -> 15, 30 -> 35; order 5 (NULL cid) -> NULL.
--   out_count: orders per customer: alice 2, bob 2, bobby 2, dave 0,
--     nobody 0.
--   out_where: orders above their customer's average (INT: cid 10 (5 +
--     25) / 2 = 15, 20: 15, 30: 35): only order 3.
--   out_expr: COALESCE(SUM(amount), 0) + COUNT(*) of the orders over 10:
--     alice 25 + 1 = 26, bob and bobby 30 + 2 = 32, dave and nobody
--     0 + 0 = 0.
--   out_two: two equalities (o.cid = c.cid, o.oid = c.cid / 10): alice
--     order 1, bob order 2, bobby order 2: 1 each; dave (order 4 has cid
--     30) and nobody 0.
CREATE TABLE orders (oid INT, cid INT, amount INT) WITH (
  'connector' = 'filesystem', 'path' = 'orders.csv', 'format' = 'csv');
CREATE TABLE customers (cid INT, name STRING) WITH (
  'connector' = 'filesystem', 'path' = 'customers.csv', 'format' = 'csv');
CREATE TABLE out_max (oid INT, m INT) WITH (
  'connector' = 'filesystem', 'path' = 'out_max', 'format' = 'debezium-json');
CREATE TABLE out_count (name STRING, n BIGINT) WITH (
  'connector' = 'filesystem', 'path' = 'out_count', 'format' = 'debezium-json');
CREATE TABLE out_where (oid INT, amount INT) WITH (
  'connector' = 'filesystem', 'path' = 'out_where', 'format' = 'debezium-json');
CREATE TABLE out_expr (name STRING, v BIGINT) WITH (
  'connector' = 'filesystem', 'path' = 'out_expr', 'format' = 'debezium-json');
CREATE TABLE out_two (name STRING, n BIGINT) WITH (
  'connector' = 'filesystem', 'path' = 'out_two', 'format' = 'debezium-json');

EXECUTE STATEMENT SET BEGIN
  INSERT INTO out_max SELECT oid, (SELECT MAX(amount) FROM orders o2 WHERE o2.cid = o.cid) AS m FROM orders o;
  INSERT INTO out_count SELECT c.name, (SELECT COUNT(*) FROM orders o WHERE o.cid = c.cid) AS n FROM customers c;
  INSERT INTO out_where SELECT oid, amount FROM orders o
    WHERE amount > (SELECT AVG(amount) FROM orders o2 WHERE o2.cid = o.cid);
  INSERT INTO out_expr SELECT c.name,
    (SELECT COALESCE(SUM(amount), 0) + COUNT(*) FROM orders o WHERE o.cid = c.cid AND o.amount > 10) AS v
    FROM customers c;
  INSERT INTO out_two SELECT name,
    (SELECT COUNT(*) FROM orders o WHERE c.cid = o.cid AND o.oid = c.cid / 10) AS n FROM customers c;
END;
