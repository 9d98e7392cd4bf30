-- NATURAL JOIN and JOIN ... USING, as Flink's SQL validator expands them:
-- the common columns come first in SELECT * (in the USING list's order, or
-- the left input's for NATURAL), once, then the other columns of the left
-- input and of the right one. Unqualified, a common column is
-- COALESCE(l.c, r.c): the left value in an inner or LEFT join, the right
-- one in a RIGHT join, either in a FULL join; qualified (o.cid, c.cid) it
-- is that input's own column, and o.* has all of o's columns. A NATURAL
-- join without a common column is a cross join. Worked by hand:
--   orders (oid, cid, amount): (1,10,5) (2,20,15) (3,10,25) (4,30,35)
--     (5,NULL,45) (6,20,15); customers (cid, name): (10,alice) (20,bob)
--     (20,bobby) (40,dave) (NULL,nobody); regions (cid, region):
--     (10,north) (20,south) (30,east); tags (tag): (x).
--   inner: orders 1 and 3 meet alice, 2 and 6 meet bob and bobby.
--   LEFT: also order 4 (cid 30) and 5 (cid NULL, which matches nothing),
--     padded; their cid is the order's.
--   RIGHT: also dave (cid 40) and nobody, padded; cid is the customer's.
--   FULL: both sets of padded rows; cid is whichever side is there.
--   orders, customers, regions: cid 10 has 2 joined rows, 20 has 4.
--   USING (name, cid) with a one-row view: name first, then cid.
CREATE TABLE orders (oid INT, cid INT, amount INT) WITH (
  'connector' = 'filesystem', 'path' = 'orders.csv', 'format' = 'csv');
CREATE TABLE customers (cid INT, name STRING) WITH (
  'connector' = 'filesystem', 'path' = 'customers.csv', 'format' = 'csv');
CREATE TABLE regions (cid INT, region STRING) WITH (
  'connector' = 'filesystem', 'path' = 'regions.csv', 'format' = 'csv');
CREATE TABLE tags (tag STRING) WITH (
  'connector' = 'filesystem', 'path' = 'tags.csv', 'format' = 'csv');
CREATE VIEW vip AS SELECT cid, name, 'vip' AS level FROM customers WHERE cid = 20 AND name = 'bob';

CREATE TABLE out_natural (cid INT, oid INT, amount INT, name STRING) WITH (
  'connector' = 'filesystem', 'path' = 'out_natural', 'format' = 'debezium-json');
CREATE TABLE out_left (cid INT, oid INT, amount INT, name STRING) WITH (
  'connector' = 'filesystem', 'path' = 'out_left', 'format' = 'debezium-json');
CREATE TABLE out_right (cid INT, oid INT, ccid INT, name STRING) WITH (
  'connector' = 'filesystem', 'path' = 'out_right', 'format' = 'debezium-json');
CREATE TABLE out_full (cid INT, ocid INT, ccid INT, oid INT, name STRING) WITH (
  'connector' = 'filesystem', 'path' = 'out_full', 'format' = 'debezium-json');
CREATE TABLE out_chain (cid INT, region STRING, n BIGINT) WITH (
  'connector' = 'filesystem', 'path' = 'out_chain', 'format' = 'debezium-json');
CREATE TABLE out_qstar (oid INT, cid INT, amount INT, name STRING) WITH (
  'connector' = 'filesystem', 'path' = 'out_qstar', 'format' = 'debezium-json');
CREATE TABLE out_cross (oid INT, tag STRING) WITH (
  'connector' = 'filesystem', 'path' = 'out_cross', 'format' = 'debezium-json');
CREATE TABLE out_two (name STRING, cid INT, level STRING) WITH (
  'connector' = 'filesystem', 'path' = 'out_two', 'format' = 'debezium-json');

EXECUTE STATEMENT SET BEGIN
  INSERT INTO out_natural SELECT * FROM orders NATURAL JOIN customers;
  INSERT INTO out_left SELECT * FROM orders o LEFT JOIN customers c USING (cid);
  INSERT INTO out_right SELECT cid, o.oid, c.cid AS ccid, name FROM orders o RIGHT JOIN customers c USING (cid);
  INSERT INTO out_full SELECT cid, o.cid AS ocid, c.cid AS ccid, oid, name
    FROM orders o FULL OUTER JOIN customers c USING (cid);
  INSERT INTO out_chain SELECT cid, region, COUNT(*) AS n
    FROM orders NATURAL JOIN customers NATURAL JOIN regions GROUP BY cid, region;
  INSERT INTO out_qstar SELECT o.*, name FROM orders o JOIN customers c USING (cid) WHERE cid = 10;
  INSERT INTO out_cross SELECT oid, tag FROM orders NATURAL JOIN tags;
  INSERT INTO out_two SELECT * FROM customers JOIN vip USING (name, cid);
END;
