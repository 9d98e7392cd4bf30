-- Correlated subqueries whose query groups (GROUP BY, HAVING), combines
-- sets (UNION [ALL], INTERSECT, EXCEPT) or is a derived table of a scalar
-- subquery: planned over the distinct values of the outer columns they
-- read, pushed into each SELECT (joined to its FROM, grouped by) and each
-- input of a set operation. Expected rows computed by SQLite over the same
-- rows (an independent engine; each scalar subquery here gives at most one
-- row per outer row):
--   orders (oid, cust, amount): (1,10,5) (2,20,15) (3,10,25) (4,30,35)
--     (5,NULL,45) (6,20,15); customers (cid, name): (10,alice) (20,bob)
--     (20,bobby) (40,dave) (NULL,nobody) (NULL,noone).
-- A few by hand:
--   out_exists_union: a 'bob%' customer of the cust, or another order of
--     it: 1 and 3 (each other's), 2 and 6 (bob); 4 and 5 have neither.
--   out_not_in_having: cids above the cust seen twice or more (20), and
--     for amounts above 30 the NULL cid (twice): 4 and 5 meet a NULL, so
--     NOT IN is unknown; 1, 2, 3, 6 stay.
--   out_scalar_group: the cust's sum, NULL for the NULL cust (no group).
--   out_scalar_having: the one cust group whose sum is the order's amount
--     (35: cust 30; 45: the NULL cust), else no row: NULL.
--   out_derived_count: COUNT(*) over a derived table with no rows is 0
--     (orders 4 and 5), not NULL.

CREATE TABLE orders (oid INT, cust INT, amount INT) WITH (
  'connector' = 'filesystem', 'path' = 'orders.csv', 'format' = 'csv');
CREATE TABLE customers (cid INT, name STRING) WITH (
  'connector' = 'filesystem', 'path' = 'customers.csv', 'format' = 'csv');
CREATE TABLE out_exists_union (oid INT) WITH ('connector' = 'filesystem', 'path' = 'out_exists_union', 'format' = 'debezium-json');
CREATE TABLE out_not_exists_except (oid INT) WITH ('connector' = 'filesystem', 'path' = 'out_not_exists_except', 'format' = 'debezium-json');
CREATE TABLE out_in_group (oid INT) WITH ('connector' = 'filesystem', 'path' = 'out_in_group', 'format' = 'debezium-json');
CREATE TABLE out_not_in_having (oid INT) WITH ('connector' = 'filesystem', 'path' = 'out_not_in_having', 'format' = 'debezium-json');
CREATE TABLE out_scalar_group (oid INT, s INT) WITH ('connector' = 'filesystem', 'path' = 'out_scalar_group', 'format' = 'debezium-json');
CREATE TABLE out_scalar_having (oid INT, n BIGINT) WITH ('connector' = 'filesystem', 'path' = 'out_scalar_having', 'format' = 'debezium-json');
CREATE TABLE out_derived (oid INT) WITH ('connector' = 'filesystem', 'path' = 'out_derived', 'format' = 'debezium-json');
CREATE TABLE out_derived_count (oid INT, n BIGINT) WITH ('connector' = 'filesystem', 'path' = 'out_derived_count', 'format' = 'debezium-json');
CREATE TABLE out_values (oid INT, e BOOLEAN, i BOOLEAN) WITH ('connector' = 'filesystem', 'path' = 'out_values', 'format' = 'debezium-json');
CREATE TABLE out_having_group (cust INT, n BIGINT) WITH ('connector' = 'filesystem', 'path' = 'out_having_group', 'format' = 'debezium-json');

EXECUTE STATEMENT SET BEGIN
  INSERT INTO out_exists_union SELECT oid FROM orders o WHERE EXISTS (SELECT c.cid FROM customers c WHERE c.cid = o.cust AND c.name LIKE 'bob%' UNION ALL SELECT p.oid FROM orders p WHERE p.cust = o.cust AND p.oid <> o.oid);
  INSERT INTO out_not_exists_except SELECT oid FROM orders o WHERE NOT EXISTS (SELECT c.cid FROM customers c WHERE c.cid = o.cust EXCEPT SELECT p.cust FROM orders p WHERE p.amount > o.amount);
  INSERT INTO out_in_group SELECT oid FROM orders o WHERE o.amount IN (SELECT MAX(p.amount) FROM orders p WHERE p.cust = o.cust GROUP BY p.cust);
  INSERT INTO out_not_in_having SELECT oid FROM orders o WHERE o.cust NOT IN (SELECT c.cid FROM customers c WHERE c.cid > o.cust OR (c.cid IS NULL AND o.amount > 30) GROUP BY c.cid HAVING COUNT(*) > 1);
  INSERT INTO out_scalar_group SELECT oid, (SELECT SUM(p.amount) FROM orders p WHERE p.cust = o.cust GROUP BY p.cust) AS s FROM orders o;
  INSERT INTO out_scalar_having SELECT oid, (SELECT COUNT(*) FROM orders p GROUP BY p.cust HAVING SUM(p.amount) = o.amount) AS n FROM orders o;
  INSERT INTO out_derived SELECT oid FROM orders o WHERE o.amount > (SELECT MAX(n) FROM (SELECT p.cust, COUNT(*) * 10 AS n FROM orders p WHERE p.cust = o.cust GROUP BY p.cust) AS x);
  INSERT INTO out_derived_count SELECT oid, (SELECT COUNT(*) FROM (SELECT p.oid FROM orders p WHERE p.cust = o.cust AND p.amount > o.amount UNION ALL SELECT c.cid FROM customers c WHERE c.cid = o.cust) AS x) AS n FROM orders o;
  INSERT INTO out_values SELECT oid, EXISTS (SELECT c.cid FROM customers c WHERE c.cid = o.cust INTERSECT SELECT p.cust FROM orders p WHERE p.amount > 10) AS e, o.cust IN (SELECT c.cid FROM customers c WHERE c.name <> 'alice' UNION SELECT p.cust FROM orders p WHERE p.oid < o.oid) AS i FROM orders o;
  INSERT INTO out_having_group SELECT cust, COUNT(*) AS n FROM orders o GROUP BY cust HAVING EXISTS (SELECT c.name FROM customers c WHERE c.cid = o.cust GROUP BY c.name HAVING COUNT(*) = 1);
END;
