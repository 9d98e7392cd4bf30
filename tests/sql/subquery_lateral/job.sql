-- Correlated LATERAL derived tables, decorrelated into joins as Flink's
-- planner does. A plain SELECT ... FROM ... WHERE is a join of the rows
-- before it with its FROM on its WHERE (LEFT JOIN LATERAL ... ON TRUE pads
-- a row without match with NULLs, every item NULL, `1 AS one` too); one of
-- aggregates without GROUP BY gives one row per row before it (COUNT over
-- no rows 0, SUM NULL). The check folds the changelogs. Worked by hand:
--   orders (oid, cid, amount): (1,10,5) (2,20,15) (3,10,25) (4,30,35)
--     (5,NULL,45) (6,20,15); customers (cid, name): (10,alice) (20,bob)
--     (20,bobby) (40,dave) (NULL,nobody).
--   out_rows: the customer's orders over 10: alice 3/25, bob and bobby
--     2/15 and 6/15; dave and nobody none (an inner join drops them).
--   out_on: those with the ON l.amount > 20 of an inner JOIN LATERAL:
--     alice 3/25 only.
--   out_left: as out_rows with `1 AS one`, LEFT JOIN ... ON TRUE: dave and
--     nobody padded (NULL, NULL).
--   out_agg: COUNT(*) and SUM(amount) of the customer's orders: alice 2/30,
--     bob and bobby 2/30, dave and nobody 0/NULL.
--   out_general: orders whose amount is above the customer's cid (not an
--     equality): 10 -> 15,25,35,45,15: 5; 20 -> 25,35,45: 3 (bob, bobby);
--     40 -> 45: 1; NULL -> amount > NULL is unknown: 0.
--   out_star: `*` of the orders 1 and 2 of another customer (o.cid <>
--     c.cid), renamed l(i, k, a): alice 2/20/15; bob and bobby 1/10/5;
--     dave both; nobody none (NULL <> x is unknown).
--   out_group: GROUP BY amount HAVING COUNT(*) > 1 of the customer's
--     orders, LEFT JOIN ... ON TRUE: alice's groups 5 and 25 have one
--     order each (padded: NULL, NULL); bob and bobby 15 (2); dave and
--     nobody padded.
--   out_distinct: the distinct amounts of the customer's orders: alice 5
--     and 25, bob and bobby 15.
--   HAVING over aggregates without GROUP BY filters each customer's one
--   row (COUNT 0 over no orders, which HAVING sees too):
--   out_having: COUNT(*), SUM(amount) HAVING MAX(amount) >= 25: alice's
--     orders 5 and 25 (max 25): 2/30; bob and bobby max 15, dave and
--     nobody NULL (unknown): dropped by the inner join.
--   out_having_left: COUNT(*) HAVING COUNT(*) < 2, LEFT JOIN ... ON TRUE:
--     alice, bob and bobby have 2 (padded: NULL); dave and nobody 0.
--   out_having_general: COUNT(*) of the orders above the customer's cid
--     (as out_general: 5, 3, 3, 1, 0) HAVING COUNT(*) > 1: alice 5, bob 3,
--     bobby 3.
--   out_agg_distinct: DISTINCT COUNT(*): one row per customer as without
--     DISTINCT: alice, bob, bobby 2; dave, nobody 0.
--   Over a join (ON) or a subquery, naming the customer by its alias:
--   out_join: the customer's orders over 10 joined with the customers of
--     their cid (d): alice 3/alice; bob and bobby each 2 and 6, each with
--     bob and bobby (4 rows each).
--   out_sub: FROM (SELECT * FROM orders WHERE amount > 10) s: alice 25;
--     bob and bobby 15 twice.
--   out_join_agg: COUNT(*) over orders LEFT JOIN customers d, LEFT JOIN
--     LATERAL: alice 2 (orders 1 and 3, one d each), bob and bobby 4
--     (2 orders x 2 d), dave and nobody 0.
--   out_outer: the customer's own columns around the aggregates (each
--     row's values): c.name, COUNT(*) + COALESCE(c.cid, -1): alice 2 + 10,
--     bob and bobby 2 + 20, dave 0 + 40, nobody 0 - 1.
CREATE TABLE orders (oid INT, cid INT, amount INT) WITH (
  'connector' = 'filesystem', 'path' = 'orders.csv', 'format' = 'csv');
CREATE TABLE customers (cid INT, name STRING) WITH (
  'connector' = 'filesystem', 'path' = 'customers.csv', 'format' = 'csv');
CREATE TABLE out_rows (name STRING, oid INT, amount INT) WITH (
  'connector' = 'filesystem', 'path' = 'out_rows', 'format' = 'debezium-json');
CREATE TABLE out_on (name STRING, oid INT, amount INT) WITH (
  'connector' = 'filesystem', 'path' = 'out_on', 'format' = 'debezium-json');
CREATE TABLE out_left (name STRING, oid INT, one INT) WITH (
  'connector' = 'filesystem', 'path' = 'out_left', 'format' = 'debezium-json');
CREATE TABLE out_agg (name STRING, n BIGINT, s INT) WITH (
  'connector' = 'filesystem', 'path' = 'out_agg', 'format' = 'debezium-json');
CREATE TABLE out_general (name STRING, n BIGINT) WITH (
  'connector' = 'filesystem', 'path' = 'out_general', 'format' = 'debezium-json');
CREATE TABLE out_star (name STRING, i INT, k INT, a INT) WITH (
  'connector' = 'filesystem', 'path' = 'out_star', 'format' = 'debezium-json');
CREATE TABLE out_group (name STRING, a INT, n BIGINT) WITH (
  'connector' = 'filesystem', 'path' = 'out_group', 'format' = 'debezium-json');
CREATE TABLE out_distinct (name STRING, amount INT) WITH (
  'connector' = 'filesystem', 'path' = 'out_distinct', 'format' = 'debezium-json');
CREATE TABLE out_having (name STRING, n BIGINT, s INT) WITH (
  'connector' = 'filesystem', 'path' = 'out_having', 'format' = 'debezium-json');
CREATE TABLE out_having_left (name STRING, n BIGINT) WITH (
  'connector' = 'filesystem', 'path' = 'out_having_left', 'format' = 'debezium-json');
CREATE TABLE out_having_general (name STRING, n BIGINT) WITH (
  'connector' = 'filesystem', 'path' = 'out_having_general', 'format' = 'debezium-json');
CREATE TABLE out_agg_distinct (name STRING, n BIGINT) WITH (
  'connector' = 'filesystem', 'path' = 'out_agg_distinct', 'format' = 'debezium-json');
CREATE TABLE out_outer (name STRING, nm STRING, v BIGINT) WITH (
  'connector' = 'filesystem', 'path' = 'out_outer', 'format' = 'debezium-json');
CREATE TABLE out_join (name STRING, oid INT, dn STRING) WITH (
  'connector' = 'filesystem', 'path' = 'out_join', 'format' = 'debezium-json');
CREATE TABLE out_sub (name STRING, amount INT) WITH (
  'connector' = 'filesystem', 'path' = 'out_sub', 'format' = 'debezium-json');
CREATE TABLE out_join_agg (name STRING, n BIGINT) WITH (
  'connector' = 'filesystem', 'path' = 'out_join_agg', 'format' = 'debezium-json');

EXECUTE STATEMENT SET BEGIN
  INSERT INTO out_rows SELECT c.name, l.oid, l.amount FROM customers c,
    LATERAL (SELECT o.oid, o.amount FROM orders o WHERE o.cid = c.cid AND o.amount > 10) AS l;
  INSERT INTO out_on SELECT c.name, l.oid, l.amount FROM customers c
    JOIN LATERAL (SELECT o.oid, o.amount FROM orders o WHERE o.cid = c.cid AND o.amount > 10) AS l
    ON l.amount > 20;
  INSERT INTO out_left SELECT c.name, l.oid, l.one FROM customers c
    LEFT JOIN LATERAL (SELECT o.oid, 1 AS one FROM orders o WHERE o.cid = c.cid AND o.amount > 10) AS l ON TRUE;
  INSERT INTO out_agg SELECT c.name, l.n, l.s FROM customers c,
    LATERAL (SELECT COUNT(*) AS n, SUM(amount) AS s FROM orders o WHERE o.cid = c.cid) AS l;
  INSERT INTO out_general SELECT c.name, l.n FROM customers c
    LEFT JOIN LATERAL (SELECT COUNT(*) AS n FROM orders o WHERE o.amount > c.cid) AS l ON TRUE;
  INSERT INTO out_star SELECT c.name, l.* FROM customers c,
    LATERAL (SELECT * FROM orders o WHERE o.cid <> c.cid AND o.oid < 3) AS l(i, k, a);
  INSERT INTO out_group SELECT c.name, l.a, l.n FROM customers c
    LEFT JOIN LATERAL (SELECT o.amount AS a, COUNT(*) AS n FROM orders o WHERE o.cid = c.cid
                       GROUP BY o.amount HAVING COUNT(*) > 1) AS l ON TRUE;
  INSERT INTO out_distinct SELECT c.name, l.amount FROM customers c,
    LATERAL (SELECT DISTINCT o.amount FROM orders o WHERE o.cid = c.cid) AS l;
  INSERT INTO out_having SELECT c.name, l.n, l.s FROM customers c,
    LATERAL (SELECT COUNT(*) AS n, SUM(amount) AS s FROM orders o WHERE o.cid = c.cid
             HAVING MAX(amount) >= 25) AS l;
  INSERT INTO out_having_left SELECT c.name, l.n FROM customers c
    LEFT JOIN LATERAL (SELECT COUNT(*) AS n FROM orders o WHERE o.cid = c.cid HAVING COUNT(*) < 2) AS l ON TRUE;
  INSERT INTO out_having_general SELECT c.name, l.n FROM customers c,
    LATERAL (SELECT COUNT(*) AS n FROM orders o WHERE o.amount > c.cid HAVING COUNT(*) > 1) AS l;
  INSERT INTO out_agg_distinct SELECT c.name, l.n FROM customers c,
    LATERAL (SELECT DISTINCT COUNT(*) AS n FROM orders o WHERE o.cid = c.cid) AS l;
  INSERT INTO out_outer SELECT c.name, l.nm, l.v FROM customers c,
    LATERAL (SELECT c.name AS nm, COUNT(*) + COALESCE(c.cid, -1) AS v FROM orders o WHERE o.cid = c.cid) AS l;
  INSERT INTO out_join SELECT c.name, l.oid, l.dn FROM customers c,
    LATERAL (SELECT o.oid, d.name AS dn FROM orders o JOIN customers d ON o.cid = d.cid
             WHERE o.cid = c.cid AND o.amount > 10) AS l;
  INSERT INTO out_sub SELECT c.name, l.amount FROM customers c,
    LATERAL (SELECT s.amount FROM (SELECT * FROM orders WHERE amount > 10) s WHERE s.cid = c.cid) AS l;
  INSERT INTO out_join_agg SELECT c.name, l.n FROM customers c
    LEFT JOIN LATERAL (SELECT COUNT(*) AS n FROM orders o LEFT JOIN customers d ON o.cid = d.cid
                       WHERE o.cid = c.cid) AS l ON TRUE;
END;
