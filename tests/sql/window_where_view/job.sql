-- WHERE in a view under a window table function, WHERE under the TVF on
-- a column the view computes, and WHERE over a window aggregation's
-- result in an outer query (the HAVING-like shape).
CREATE TABLE src (k STRING, v BIGINT, ts_ms BIGINT, v2 AS v * 2, ts AS TO_TIMESTAMP_LTZ(ts_ms, 3),
  WATERMARK FOR ts AS ts - INTERVAL '0' SECOND) WITH ('connector' = 'filesystem', 'path' = 'in.json', 'format' = 'json');
CREATE VIEW big AS SELECT k, v, ts, UPPER(k) AS uk FROM src WHERE v > 100;
SELECT 'view', window_start, uk, COUNT(*) FROM TABLE(TUMBLE(TABLE big, DESCRIPTOR(ts), INTERVAL '2' SECOND))
WHERE uk <> 'B' GROUP BY window_start, window_end, uk;
SELECT 'outer', ws, k, c FROM (
  SELECT window_start AS ws, k, COUNT(*) AS c FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '2' SECOND))
  WHERE v > 100 GROUP BY window_start, window_end, k) WHERE c >= 2 AND k <> 'b';
WITH w AS (SELECT * FROM src WHERE k = 'a')
SELECT 'with', window_start, COUNT(*), MIN(v) FROM TABLE(TUMBLE(TABLE w, DESCRIPTOR(ts), INTERVAL '4' SECOND))
WHERE v >= 101 GROUP BY window_start, window_end;
