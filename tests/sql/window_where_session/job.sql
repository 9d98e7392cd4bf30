-- A WHERE under SESSION decides which rows open and extend sessions:
-- (b, 10, 2500) is filtered out, so b's sessions at 1500 and 3000 do not
-- meet (without the filter they would merge into one).
CREATE TABLE src (k STRING, v BIGINT, ts_ms BIGINT, v2 AS v * 2, ts AS TO_TIMESTAMP_LTZ(ts_ms, 3),
  WATERMARK FOR ts AS ts - INTERVAL '0' SECOND) WITH ('connector' = 'filesystem', 'path' = 'in.json', 'format' = 'json');
SELECT window_start, window_end, k, COUNT(*) AS c, SUM(v) AS s
FROM TABLE(SESSION(TABLE src PARTITION BY k, DESCRIPTOR(ts), INTERVAL '1' SECOND))
WHERE v > 100 GROUP BY window_start, window_end, k;
