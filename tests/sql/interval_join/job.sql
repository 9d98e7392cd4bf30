-- Interval joins: a join of two tables with time attributes whose
-- condition bounds one time by the other (BETWEEN, or < / <= / > / >=
-- with INTERVAL offsets). Boundaries are exact (BETWEEN includes both
-- ends, 12:59:59.999 is not >= 13:00), and the output is append-only.
CREATE TABLE orders (id INT, ot TIMESTAMP(3), WATERMARK FOR ot AS ot - INTERVAL '1' MINUTE) WITH (
  'connector' = 'filesystem', 'path' = 'orders.csv', 'format' = 'csv');
-- ships is out of order by up to 4 hours (its watermark allows that): a
-- row behind its own input's watermark would be late, neither joined nor
-- stored.
CREATE TABLE ships (oid INT, st TIMESTAMP(3), WATERMARK FOR st AS st - INTERVAL '4' HOUR) WITH (
  'connector' = 'filesystem', 'path' = 'ships.csv', 'format' = 'csv');
CREATE TABLE out_csv (id INT, ot TIMESTAMP(3), st TIMESTAMP(3)) WITH (
  'connector' = 'filesystem', 'path' = 'out', 'format' = 'csv');

INSERT INTO out_csv
SELECT o.id, o.ot, s.st FROM orders o, ships s
WHERE o.id = s.oid AND o.ot BETWEEN s.st - INTERVAL '4' HOUR AND s.st;

SELECT o.id, s.st FROM orders o JOIN ships s
  ON o.id = s.oid AND s.st > o.ot AND s.st < o.ot + INTERVAL '3' HOUR;

-- An outer interval join pads a row only once it can no longer match, so
-- its result is append-only too (this sink takes appends only).
CREATE TABLE out_left (id INT, st TIMESTAMP(3)) WITH (
  'connector' = 'filesystem', 'path' = 'out_left', 'format' = 'csv');
INSERT INTO out_left
SELECT o.id, s.st FROM orders o LEFT JOIN ships s
  ON o.id = s.oid AND o.ot BETWEEN s.st - INTERVAL '4' HOUR AND s.st;
