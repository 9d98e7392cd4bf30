-- Cascading window aggregations as Flink's documentation writes them.
-- The inner aggregation keeps the names window_start and window_end (they
-- used to clash with the outer window's columns), groups by window_time
-- and selects it to carry the time attribute into the next window.
CREATE TABLE bid (k STRING, v BIGINT, ts_ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ts_ms, 3),
  WATERMARK FOR ts AS ts - INTERVAL '0' SECOND) WITH ('connector' = 'filesystem', 'path' = 'bids.json', 'format' = 'json');

-- 1. GROUP BY the inner window's bounds, names kept: the same windows again.
SELECT 'same', window_start, window_end, SUM(cnt) AS total, COUNT(*) AS keys FROM (
  SELECT k, window_start, window_end, COUNT(*) AS cnt
  FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(ts), INTERVAL '1' SECOND))
  GROUP BY k, window_start, window_end)
GROUP BY window_start, window_end;

-- 2. The same with window_time grouped and selected on both levels.
SELECT 'same-time', window_start, window_time, MAX(s) FROM (
  SELECT window_start, window_end, window_time, k, SUM(v) AS s
  FROM TABLE(HOP(TABLE bid, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '2' SECOND))
  GROUP BY window_start, window_end, window_time, k)
GROUP BY window_start, window_end, window_time;

-- 3. A bigger window over the inner one's window_time, renamed rowtime.
CREATE VIEW window1 AS
SELECT window_start, window_end, window_time AS rowtime, SUM(v) AS partial_price
  FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(ts), INTERVAL '1' SECOND))
  GROUP BY k, window_start, window_end, window_time;
SELECT 'rowtime', window_start, window_end, SUM(partial_price) AS total_price
  FROM TABLE(TUMBLE(TABLE window1, DESCRIPTOR(rowtime), INTERVAL '2' SECOND))
  GROUP BY window_start, window_end;

-- 4. The same over window_time itself.
CREATE VIEW window2 AS
SELECT window_start, window_end, window_time, SUM(v) AS partial_price
  FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(ts), INTERVAL '1' SECOND))
  GROUP BY k, window_start, window_end, window_time;
SELECT 'window_time', window_start, window_end, SUM(partial_price) AS total_price, window_time
  FROM TABLE(TUMBLE(TABLE window2, DESCRIPTOR(window_time), INTERVAL '4' SECOND))
  GROUP BY window_start, window_end;

-- 5. A window over a window deduplication: the first bid of each second,
-- then summed per 2 s on its window_time.
CREATE VIEW firsts AS SELECT window_start, window_end, window_time, k, v FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY ts ASC) AS rn
  FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(ts), INTERVAL '1' SECOND))) WHERE rn <= 1;
SELECT 'dedup', window_start, window_end, SUM(v) AS firsts_total, COUNT(*) AS n
  FROM TABLE(TUMBLE(TABLE firsts, DESCRIPTOR(window_time), INTERVAL '2' SECOND))
  GROUP BY window_start, window_end;
SELECT 'dedup-same', window_start, SUM(v) FROM firsts GROUP BY window_start, window_end;

-- 6. A window after an interval join: the join's output keeps the left
-- side's time attribute (each pair at its bid's time).
CREATE TABLE ship (k STRING, s_ms BIGINT, st AS TO_TIMESTAMP_LTZ(s_ms, 3),
  WATERMARK FOR st AS st - INTERVAL '10' SECOND) WITH ('connector' = 'filesystem', 'path' = 'ship.json', 'format' = 'json');
CREATE VIEW shipped AS SELECT b.k, b.v, b.ts FROM bid b, ship s
  WHERE b.k = s.k AND b.ts BETWEEN s.st - INTERVAL '1' SECOND AND s.st;
SELECT 'join', window_start, k, COUNT(*) AS pairs, SUM(v) AS s
  FROM TABLE(TUMBLE(TABLE shipped, DESCRIPTOR(ts), INTERVAL '2' SECOND))
  GROUP BY window_start, window_end, k;
