-- An event-time temporal join whose residual fails at run time (10 / (v -
-- w) with v = w): the error names the left row as its place among the
-- key's rows the watermark released (in time order, from 0) and the
-- version it met as its place among the key's versions (in time order),
-- as a regular join names its input row and the other input's row it met.
-- The watermarks lag an hour: every timer fires at the end of the input,
-- in time order, each releasing one order.
CREATE TABLE orders (k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' HOUR) WITH (
  'connector' = 'filesystem', 'path' = 'orders.csv', 'format' = 'csv');
CREATE TABLE rates (k STRING, w INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' HOUR,
  PRIMARY KEY (k) NOT ENFORCED) WITH ('connector' = 'filesystem', 'path' = 'rates.csv', 'format' = 'csv');
SELECT o.k, o.v, r.w
FROM orders AS o JOIN rates FOR SYSTEM_TIME AS OF o.ts AS r
  ON o.k = r.k AND 10 / (o.v - r.w) > 0;
