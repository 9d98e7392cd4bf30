-- Window joins: two window aggregations joined on their window bounds
-- (renamed on one side), each join type, a residual condition, NULL keys
-- (never equal), a row at end - 1 (10:00:09.999 is in [10:00:00, 10:00:10)),
-- and window table functions joined directly (HOP: one row per window).
-- The output is append-only: every window is joined once, when the
-- watermark reaches its end.
-- window_join_aligned: the same job with both sources in one watermark
-- alignment group (the result cannot change; the sources pause while one
-- is ahead, and subtasks without a split must not hold the others back).
CREATE TABLE l (k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = 'l.csv', 'format' = 'csv',
  'scan.watermark.alignment.group' = 'g', 'scan.watermark.alignment.max-drift' = '2s');
CREATE TABLE r (k STRING, w INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = 'r.csv', 'format' = 'csv',
  'scan.watermark.alignment.group' = 'g', 'scan.watermark.alignment.max-drift' = '2s');
CREATE TABLE out_inner (k STRING, ws TIMESTAMP(3), sv INT, sw INT) WITH (
  'connector' = 'filesystem', 'path' = 'out_inner', 'format' = 'csv');
-- an empty k is NULL: a NULL key matches nothing
CREATE VIEW ln AS SELECT NULLIF(k, '') AS k, v, ts FROM l;
CREATE VIEW rn AS SELECT NULLIF(k, '') AS k, w, ts FROM r;
CREATE VIEW lw AS
  SELECT k, window_start, window_end, SUM(v) AS sv
  FROM TABLE(TUMBLE(TABLE ln, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY k, window_start, window_end;
CREATE VIEW rw AS
  SELECT k, window_start AS s, window_end AS e, SUM(w) AS sw
  FROM TABLE(TUMBLE(TABLE rn, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY k, window_start, window_end;

-- an append-only sink takes the window join
INSERT INTO out_inner
SELECT a.k, a.window_start, a.sv, b.sw FROM lw a JOIN rw b
  ON a.k = b.k AND a.window_start = b.s AND a.window_end = b.e;

SELECT 'left', a.k, a.window_start, a.sv, b.sw FROM lw a LEFT JOIN rw b
  ON a.k = b.k AND a.window_start = b.s AND a.window_end = b.e AND b.sw > a.sv * 10;
SELECT 'right', a.k, b.k, b.s, a.sv, b.sw FROM lw a RIGHT JOIN rw b
  ON a.k = b.k AND a.window_start = b.s AND a.window_end = b.e;
SELECT 'full', a.k, a.window_start, b.k, b.s FROM lw a FULL JOIN rw b
  ON a.k = b.k AND a.window_start = b.s AND a.window_end = b.e;

-- window table functions joined directly: each row once per HOP window
SELECT 'tvf', x.k, x.window_start, x.v, y.w
FROM TABLE(HOP(TABLE l, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND)) x
JOIN TABLE(HOP(TABLE r, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND)) y
  ON x.k = y.k AND x.window_start = y.window_start AND x.window_end = y.window_end AND x.v < 5;
