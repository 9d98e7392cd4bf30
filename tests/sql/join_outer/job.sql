-- Outer joins: rows without a match are padded with NULLs, and a padded
-- row is retracted when its first match arrives. Which side's rows arrive
-- first is up to the scheduler, so the check folds each changelog into
-- the table it describes and compares that.
CREATE TABLE orders (oid INT, cust INT, amount INT) WITH (
  'connector' = 'filesystem', 'path' = 'orders.csv', 'format' = 'csv');
CREATE TABLE customers (cid INT, name STRING) WITH (
  'connector' = 'filesystem', 'path' = 'customers.csv', 'format' = 'csv');
CREATE TABLE out_left (oid INT, name STRING) WITH (
  'connector' = 'filesystem', 'path' = 'out_left', 'format' = 'debezium-json');
CREATE TABLE out_right (oid INT, name STRING) WITH (
  'connector' = 'filesystem', 'path' = 'out_right', 'format' = 'debezium-json');
CREATE TABLE out_full (oid INT, amount INT, cid INT, name STRING) WITH (
  'connector' = 'filesystem', 'path' = 'out_full', 'format' = 'debezium-json');

EXECUTE STATEMENT SET BEGIN
  INSERT INTO out_left SELECT o.oid, c.name FROM orders o LEFT JOIN customers c ON o.cust = c.cid;
  INSERT INTO out_right SELECT o.oid, c.name FROM orders o RIGHT OUTER JOIN customers c ON o.cust = c.cid;
  -- the residual condition decides matches, so orders of 10 or less stay padded
  INSERT INTO out_full SELECT o.oid, o.amount, c.cid, c.name
    FROM orders o FULL OUTER JOIN customers c ON o.cust = c.cid AND o.amount > 10;
END;
