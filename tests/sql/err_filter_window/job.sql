CREATE TABLE t (k STRING, v INT, ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ms, 3),
  WATERMARK FOR ts AS ts) WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
SELECT k, window_start, COUNT(*) FILTER (WHERE v > 4)
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' SECOND))
GROUP BY k, window_start, window_end;
