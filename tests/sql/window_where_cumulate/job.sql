-- A WHERE under CUMULATE, with an OR and a projection over the result.
CREATE TABLE src (k STRING, v BIGINT, ts_ms BIGINT, v2 AS v * 2, ts AS TO_TIMESTAMP_LTZ(ts_ms, 3),
  WATERMARK FOR ts AS ts - INTERVAL '0' SECOND) WITH ('connector' = 'filesystem', 'path' = 'in.json', 'format' = 'json');
SELECT window_start, window_end, COUNT(*) AS c, SUM(v) * 10 AS s10
FROM TABLE(CUMULATE(TABLE src, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '3' SECOND))
WHERE v > 100 OR k = 'b' GROUP BY window_start, window_end;
