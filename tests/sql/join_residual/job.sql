-- An equi-join with a residual non-equi condition (evaluated on each
-- candidate pair) and a condition on one side only: append-only inputs,
-- append-only result.
CREATE TABLE bids (item INT, price INT, seq INT) WITH (
  'connector' = 'filesystem', 'path' = 'bids.csv', 'format' = 'csv');
CREATE TABLE items (id INT, name STRING, lo INT, hi INT) WITH (
  'connector' = 'filesystem', 'path' = 'items.csv', 'format' = 'csv');

SELECT b.seq, i.name, b.price
FROM bids b JOIN items i
  ON b.item = i.id AND b.price BETWEEN i.lo AND i.hi AND i.name <> 'fig';
