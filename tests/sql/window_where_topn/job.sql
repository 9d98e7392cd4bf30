-- A window Top-N's input: its WHERE may read the window columns (the
-- rows get their windows before the WHERE), and filters before ranking.
CREATE TABLE src (k STRING, v BIGINT, ts_ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ts_ms, 3),
  WATERMARK FOR ts AS ts - INTERVAL '0' SECOND) WITH ('connector' = 'filesystem', 'path' = 'in.json', 'format' = 'json');
SELECT 'top', window_start, k, v FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY v DESC) AS rn
  FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '2' SECOND)) WHERE v < 400 AND k <> 'z'
) WHERE rn <= 1;
SELECT 'late-windows', window_start, k, v FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY v DESC) AS rn
  FROM TABLE(HOP(TABLE src, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '4' SECOND))
  WHERE window_end > TIMESTAMP '1970-01-01 00:00:06' AND window_start < TIMESTAMP '1970-01-01 00:00:08'
) WHERE rn <= 1;
