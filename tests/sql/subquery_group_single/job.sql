-- Scalar subqueries that are not one aggregate row (checked at run time
-- to give at most one row, through SINGLE_VALUE as Flink plans them),
-- subqueries in GROUP BY, and correlated subqueries and IN in an
-- aggregating query's SELECT list and HAVING. The check folds each
-- changelog into its table. Worked by hand:
--   orders (oid, cust, amount): (1,10,5) (2,20,15) (3,10,25) (4,30,35)
--     (5,NULL,45) (6,20,15); customers (cid, name): (10,alice) (20,bob)
--     (20,bobby) (40,dave) (NULL,nobody) (NULL,noone).
--   out_single: the one customer of the order's cust, 20 left out (it has
--     two): alice for orders 1 and 3, NULL for the others (cust 30 has
--     none; a NULL cust matches nothing, and the two NULL-cid customers
--     are no group a cust can match, so they fail nothing).
--   out_single_uncorr: the one customer of cid 40: dave, for orders 1, 2.
--   out_single_group: the one cid with two customers (NULL left out): 20.
--   out_group_in: cust IN (10, 20, 20, 40, NULL, NULL): TRUE for 10 and 20
--     (5 + 25 + 15 + 15 = 60), NULL for 30 and NULL (35 + 45 = 80).
--   out_group_scalar: the largest name of the cust's customers: alice
--     (orders 1, 3), bobby (2, 6), NULL (4, 5).
--   out_agg_corr: per cust, its customers and its sum: (10, 1, 30),
--     (20, 2, 30), (30, 0, 35), (NULL, 0, 45).
--   out_having_in: cust NOT IN (10, 20, 20, 40): 30 only (NULL is unknown).
--   out_having_exists: custs with a customer other than bob: 10 and 20.
--   Subqueries in the conditions of a subquery planned as a semi or anti
--   join (the nested one of its own tables, joined to its rows first):
--   out_nested_in: cust IN the cids above the smallest (20, 20, 40):
--     orders 2 and 6.
--   out_nested_exists: a customer of the order's cust whose cid is below
--     the largest (40): orders 1, 2, 3 and 6.
--   out_nested_not_in: the cids (not NULL) that are some large order's
--     cust (amount > 30: custs 30 and NULL, so cid IN them is NULL but
--     never TRUE) or 10: {10}; cust NOT IN {10}: orders 2, 4 and 6 (the
--     NULL cust is unknown).
--   In an inner join's ON (as in WHERE: the same pairs pass):
--   out_on_scalar: pairs of order and customer with amount above the
--     average (23): order 3 with alice.
--   out_on_not_in: pairs whose name is not one of cid 20's (bob, bobby):
--     orders 1 and 3 with alice.
CREATE TABLE orders (oid INT, cust INT, amount INT) WITH (
  'connector' = 'filesystem', 'path' = 'orders.csv', 'format' = 'csv');
CREATE TABLE customers (cid INT, name STRING) WITH (
  'connector' = 'filesystem', 'path' = 'customers.csv', 'format' = 'csv');
CREATE TABLE out_single (oid INT, n STRING) WITH ('connector' = 'filesystem', 'path' = 'out_single', 'format' = 'debezium-json');
CREATE TABLE out_single_uncorr (oid INT, n STRING) WITH ('connector' = 'filesystem', 'path' = 'out_single_uncorr', 'format' = 'debezium-json');
CREATE TABLE out_single_group (oid INT, d INT) WITH ('connector' = 'filesystem', 'path' = 'out_single_group', 'format' = 'debezium-json');
CREATE TABLE out_group_in (known BOOLEAN, s BIGINT) WITH ('connector' = 'filesystem', 'path' = 'out_group_in', 'format' = 'debezium-json');
CREATE TABLE out_group_scalar (nm STRING, n BIGINT) WITH ('connector' = 'filesystem', 'path' = 'out_group_scalar', 'format' = 'debezium-json');
CREATE TABLE out_agg_corr (cust INT, nc BIGINT, s BIGINT) WITH ('connector' = 'filesystem', 'path' = 'out_agg_corr', 'format' = 'debezium-json');
CREATE TABLE out_having_in (cust INT, n BIGINT) WITH ('connector' = 'filesystem', 'path' = 'out_having_in', 'format' = 'debezium-json');
CREATE TABLE out_having_exists (cust INT, n BIGINT) WITH ('connector' = 'filesystem', 'path' = 'out_having_exists', 'format' = 'debezium-json');
CREATE TABLE out_nested_in (oid INT) WITH ('connector' = 'filesystem', 'path' = 'out_nested_in', 'format' = 'debezium-json');
CREATE TABLE out_nested_exists (oid INT) WITH ('connector' = 'filesystem', 'path' = 'out_nested_exists', 'format' = 'debezium-json');
CREATE TABLE out_nested_not_in (oid INT) WITH ('connector' = 'filesystem', 'path' = 'out_nested_not_in', 'format' = 'debezium-json');
CREATE TABLE out_on_scalar (oid INT, name STRING) WITH ('connector' = 'filesystem', 'path' = 'out_on_scalar', 'format' = 'debezium-json');
CREATE TABLE out_on_not_in (oid INT, name STRING) WITH ('connector' = 'filesystem', 'path' = 'out_on_not_in', 'format' = 'debezium-json');

EXECUTE STATEMENT SET BEGIN
  INSERT INTO out_single SELECT oid, (SELECT name FROM customers c WHERE c.cid = o.cust AND c.cid <> 20) FROM orders o;
  INSERT INTO out_single_uncorr SELECT oid, (SELECT name FROM customers WHERE cid = 40) FROM orders WHERE oid < 3;
  INSERT INTO out_single_group SELECT oid, (SELECT cid FROM customers GROUP BY cid HAVING COUNT(*) > 1 AND cid IS NOT NULL) FROM orders WHERE oid = 1;
  INSERT INTO out_group_in SELECT cust IN (SELECT cid FROM customers), SUM(amount) FROM orders GROUP BY cust IN (SELECT cid FROM customers);
  INSERT INTO out_group_scalar SELECT (SELECT MAX(name) FROM customers c WHERE c.cid = o.cust), COUNT(*) FROM orders o
    GROUP BY (SELECT MAX(name) FROM customers c WHERE c.cid = o.cust);
  INSERT INTO out_agg_corr SELECT cust, (SELECT COUNT(*) FROM customers c WHERE c.cid = o.cust), SUM(amount) FROM orders o GROUP BY cust;
  INSERT INTO out_having_in SELECT cust, COUNT(*) FROM orders o GROUP BY cust HAVING cust NOT IN (SELECT cid FROM customers WHERE cid IS NOT NULL);
  INSERT INTO out_having_exists SELECT cust, COUNT(*) FROM orders o GROUP BY cust
    HAVING EXISTS (SELECT * FROM customers c WHERE c.cid = o.cust AND c.name <> 'bob');
  INSERT INTO out_nested_in SELECT oid FROM orders WHERE cust IN (SELECT cid FROM customers WHERE cid > (SELECT MIN(cid) FROM customers));
  INSERT INTO out_nested_exists SELECT oid FROM orders o
    WHERE EXISTS (SELECT * FROM customers c WHERE c.cid = o.cust AND c.cid < (SELECT MAX(cid) FROM customers));
  INSERT INTO out_nested_not_in SELECT oid FROM orders
    WHERE cust NOT IN (SELECT cid FROM customers WHERE cid IS NOT NULL AND (cid IN (SELECT cust FROM orders WHERE amount > 30) OR cid = 10));
  INSERT INTO out_on_scalar SELECT o.oid, c.name FROM orders o JOIN customers c
    ON o.cust = c.cid AND o.amount > (SELECT AVG(amount) FROM orders);
  INSERT INTO out_on_not_in SELECT o.oid, c.name FROM orders o JOIN customers c
    ON o.cust = c.cid AND c.name NOT IN (SELECT name FROM customers WHERE cid = 20 AND name IS NOT NULL);
END;
