-- IN / EXISTS subqueries used as values (in the SELECT list, under OR),
-- and subqueries in an aggregating query's SELECT list and HAVING, with
-- SQL's NULL rules: x IN (a set without x) is NULL when x is NULL or the
-- set has a NULL, and FALSE over no rows; NOT IN is its NOT. A subquery of
-- one aggregate row gives one row: x IN (q) is x = (q). Each is planned as
-- joins of counts (changelogs); the check folds them. Worked by hand:
--   orders (oid, cid, amount): (1,10,5) (2,20,15) (3,10,25) (4,30,35)
--     (5,NULL,45) (6,20,15); customers (cid, name): (10,alice) (20,bob)
--     (20,bobby) (40,dave) (NULL,nobody).
--   out_tests: b = cid IN (10, 20, 20, 40, NULL): TRUE for cids 10 and
--     20, NULL for 30 (the set has a NULL) and for NULL; e = a customer
--     of that cid exists: FALSE for 30 and NULL; n = cid NOT IN (10, 20,
--     20, 40) (nobody filtered out): TRUE for 30, NULL for NULL.
--   out_or: amount > 40 (order 5) or alice's orders (1, 3).
--   out_having: every cid's sum (30, 30, 35, 45) exceeds the smallest
--     customer cid (10); dave exists.
--   out_in_agg: the orders whose amount is their customer's largest:
--     2, 3, 4, 6 (order 5's cid is NULL: its largest is NULL).
--   out_not_in_null: cid NOT IN a set with a NULL is never TRUE, so only
--     amount < 10 selects: order 1.
--   out_exists_having: HAVING can take the aggregate's one row away: 5
--     customers are not more than 10, so EXISTS is FALSE (order 1 out) and
--     NOT EXISTS TRUE (order 2 in).
CREATE TABLE orders (oid INT, cid INT, amount INT) WITH (
  'connector' = 'filesystem', 'path' = 'orders.csv', 'format' = 'csv');
CREATE TABLE customers (cid INT, name STRING) WITH (
  'connector' = 'filesystem', 'path' = 'customers.csv', 'format' = 'csv');
CREATE TABLE out_tests (oid INT, b BOOLEAN, e BOOLEAN, n BOOLEAN) WITH (
  'connector' = 'filesystem', 'path' = 'out_tests', 'format' = 'debezium-json');
CREATE TABLE out_or (oid INT) WITH ('connector' = 'filesystem', 'path' = 'out_or', 'format' = 'debezium-json');
CREATE TABLE out_having (cid INT, s INT, m BOOLEAN) WITH (
  'connector' = 'filesystem', 'path' = 'out_having', 'format' = 'debezium-json');
CREATE TABLE out_in_agg (oid INT) WITH ('connector' = 'filesystem', 'path' = 'out_in_agg', 'format' = 'debezium-json');
CREATE TABLE out_exists_having (oid INT) WITH (
  'connector' = 'filesystem', 'path' = 'out_exists_having', 'format' = 'debezium-json');
CREATE TABLE out_not_in_null (oid INT) WITH (
  'connector' = 'filesystem', 'path' = 'out_not_in_null', 'format' = 'debezium-json');

EXECUTE STATEMENT SET BEGIN
  INSERT INTO out_tests SELECT oid, cid IN (SELECT cid FROM customers) AS b,
    EXISTS (SELECT * FROM customers c WHERE c.cid = o.cid) AS e,
    cid NOT IN (SELECT cid FROM customers WHERE name <> 'nobody') AS n
    FROM orders o;
  INSERT INTO out_or SELECT oid FROM orders o
    WHERE amount > 40 OR EXISTS (SELECT * FROM customers c WHERE c.cid = o.cid AND c.name = 'alice');
  INSERT INTO out_having SELECT cid, SUM(amount) AS s, EXISTS (SELECT * FROM customers WHERE name = 'dave') AS m
    FROM orders GROUP BY cid HAVING SUM(amount) > (SELECT MIN(cid) FROM customers);
  INSERT INTO out_in_agg SELECT oid FROM orders o
    WHERE amount IN (SELECT MAX(amount) FROM orders o2 WHERE o2.cid = o.cid);
  INSERT INTO out_not_in_null SELECT oid FROM orders WHERE amount < 10 OR cid NOT IN (SELECT cid FROM customers);
  INSERT INTO out_exists_having SELECT oid FROM orders
    WHERE (oid = 1 AND EXISTS (SELECT COUNT(*) FROM customers HAVING COUNT(*) > 10))
       OR (oid = 2 AND NOT EXISTS (SELECT COUNT(*) FROM customers HAVING COUNT(*) > 10));
END;
