-- A window join whose residual fails at run time (10 / (v - w) with v = w):
-- the error names the pair's rows as places among its key's rows in the
-- window on each side (arrival order, from 0), as a regular join names
-- its input row and the other input's row it met.
CREATE TABLE l (k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH (
  'connector' = 'filesystem', 'path' = 'l.csv', 'format' = 'csv');
CREATE TABLE r (k STRING, w INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH (
  'connector' = 'filesystem', 'path' = 'r.csv', 'format' = 'csv');
SELECT a.k, a.v, b.w
FROM (SELECT * FROM TABLE(TUMBLE(TABLE l, DESCRIPTOR(ts), INTERVAL '10' SECOND))) a
JOIN (SELECT * FROM TABLE(TUMBLE(TABLE r, DESCRIPTOR(ts), INTERVAL '10' SECOND))) b
  ON a.k = b.k AND a.window_start = b.window_start AND a.window_end = b.window_end AND 10 / (a.v - b.w) > 0;
