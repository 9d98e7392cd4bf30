-- table.exec.sink.upsert-materialize = FORCE puts the upsert materializer
-- in front of a print table with a PRIMARY KEY (print is no upsert sink:
-- AUTO would not). orders' changes are keyed by id (a changelog with a
-- PRIMARY KEY); the table's key is cust, so the materializer keeps per
-- cust the live orders in arrival order, matched by id, and prints a
-- changelog per cust: +I when cust had no live order, else +U; a -U/-D
-- that empties cust is -D; one that removes cust's last order shows the
-- new last one as +U; a deletion of an order never seen (id 9) is ignored.
-- The source is one file (one split), so every subtask of the table
-- receives its custs' changes in file order at any parallelism.
SET 'table.exec.sink.upsert-materialize' = 'FORCE';
CREATE TABLE orders (id INT, cust STRING, amount INT, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'filesystem', 'path' = 'orders.json', 'format' = 'debezium-json');
CREATE TABLE by_cust (id INT, cust STRING, amount INT, PRIMARY KEY (cust) NOT ENFORCED)
  WITH ('connector' = 'print');
INSERT INTO by_cust SELECT id, cust, amount FROM orders;
