-- FOR SYSTEM_TIME AS OF outside a join is Flink's time travel: the table
-- as its catalog kept it at that time. weir's catalogs keep no versions of
-- a table, so it is refused by name, with the catalog and what the clause
-- does on the right side of a join.
CREATE TABLE orders (order_id INT, ts TIMESTAMP(3))
  WITH ('connector' = 'filesystem', 'path' = 'orders.json', 'format' = 'json');
SELECT order_id FROM orders FOR SYSTEM_TIME AS OF TIMESTAMP '2024-01-01 10:00:10';
