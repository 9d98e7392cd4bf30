-- A debezium-json update decodes to two rows (-U, +U) that a reader
-- appends together: at a batch size of one row the source still reads it
-- (it hung, reading nothing, before) and hands the rows on one at a time.
SET 'weir.batch-size' = '1';
CREATE TABLE orders (id INT, cust STRING, amount INT) WITH (
  'connector' = 'filesystem', 'path' = 'orders.json', 'format' = 'debezium-json');

SELECT cust, COUNT(*) AS n, SUM(amount) AS s FROM orders GROUP BY cust;
