-- A WHERE under HOP: the filter runs before the windows are assigned.
CREATE TABLE src (k STRING, v BIGINT, ts_ms BIGINT, v2 AS v * 2, ts AS TO_TIMESTAMP_LTZ(ts_ms, 3),
  WATERMARK FOR ts AS ts - INTERVAL '0' SECOND) WITH ('connector' = 'filesystem', 'path' = 'in.json', 'format' = 'json');
SELECT window_start, window_end, k, COUNT(*) AS c, MAX(v2) AS m
FROM TABLE(HOP(TABLE src, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '2' SECOND))
WHERE v2 > 200 AND k = 'a' GROUP BY window_start, window_end, k;
