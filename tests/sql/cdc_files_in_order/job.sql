-- A changelog in two files is one history, read in name order (a.json,
-- then b.json) by one subtask whatever the parallelism, one row at a
-- time: id 1's delete in b.json must not overtake its insert and update
-- in a.json (read side by side, it did, and the aggregation failed).
-- The global count and sum follow the history step by step: a count that
-- comes back to zero deletes the row, the next change inserts it again.
SET 'weir.batch-size' = '1';
CREATE TABLE h (id INT, v STRING) WITH (
  'connector' = 'filesystem', 'path' = 'in', 'format' = 'debezium-json');

SELECT COUNT(*) AS n, SUM(id) AS s FROM h;
