-- Subqueries in an outer join's ON that read only the side the join pads
-- (a LEFT join's right input, a RIGHT join's left one): such a conjunct
-- decides which of that side's rows match, so it filters that side before
-- the join (semi and anti joins, joined values), and the preserved rows
-- are padded as before. The check folds the changelogs. Worked by hand:
--   orders (oid, cid, amount): (1,10,5) (2,20,15) (3,10,25) (4,30,35)
--     (5,NULL,45) (6,20,15); customers (cid, name): (10,alice) (20,bob)
--     (20,bobby) (40,dave) (NULL,nobody).
--   out_in: customers named as one of cid 20 (bob, bobby): orders 2 and 6
--     meet both; 1 and 3 (alice is not one), 4 (no customer 30), 5 (NULL)
--     padded.
--   out_exists: orders with another order of their cid (1, 3 of 10; 2, 6
--     of 20; not 4, alone, nor 5, NULL): alice 1 and 3, bob and bobby 2
--     and 6, dave and nobody padded.
--   out_right: orders over the average amount (140 / 6 = 23 as an INT):
--     3, 4, 5; RIGHT-joined to the customers: alice 3, the others padded.
--   out_not_in: customers not named as one of cid 20: alice; orders 1, 3
--     meet her, the others are padded.
CREATE TABLE orders (oid INT, cid INT, amount INT) WITH (
  'connector' = 'filesystem', 'path' = 'orders.csv', 'format' = 'csv');
CREATE TABLE customers (cid INT, name STRING) WITH (
  'connector' = 'filesystem', 'path' = 'customers.csv', 'format' = 'csv');
CREATE TABLE out_in (oid INT, name STRING) WITH (
  'connector' = 'filesystem', 'path' = 'out_in', 'format' = 'debezium-json');
CREATE TABLE out_exists (name STRING, oid INT) WITH (
  'connector' = 'filesystem', 'path' = 'out_exists', 'format' = 'debezium-json');
CREATE TABLE out_right (name STRING, oid INT) WITH (
  'connector' = 'filesystem', 'path' = 'out_right', 'format' = 'debezium-json');
CREATE TABLE out_not_in (oid INT, name STRING) WITH (
  'connector' = 'filesystem', 'path' = 'out_not_in', 'format' = 'debezium-json');

EXECUTE STATEMENT SET BEGIN
  INSERT INTO out_in SELECT o.oid, c.name FROM orders o LEFT JOIN customers c
    ON o.cid = c.cid AND c.name IN (SELECT name FROM customers WHERE cid = 20);
  INSERT INTO out_exists SELECT c.name, o.oid FROM customers c LEFT JOIN orders o
    ON o.cid = c.cid AND EXISTS (SELECT * FROM orders o2 WHERE o2.cid = o.cid AND o2.oid <> o.oid);
  INSERT INTO out_right SELECT c.name, o.oid FROM orders o RIGHT JOIN customers c
    ON o.cid = c.cid AND o.amount > (SELECT AVG(amount) FROM orders);
  INSERT INTO out_not_in SELECT o.oid, c.name FROM orders o LEFT JOIN customers c
    ON o.cid = c.cid AND c.name NOT IN (SELECT name FROM customers WHERE cid = 20);
END;
