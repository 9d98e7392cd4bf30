-- A record without an event time (ts_ms NULL or missing, so the computed
-- rowtime ts is NULL) is a bad record like any other: with 'skip' it is
-- counted and dropped, and the windows count the other rows.
CREATE TABLE clicks (user_id STRING, ts_ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ts_ms, 3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'filesystem', 'path' = 'clicks.json', 'format' = 'json',
      'source.bad-input' = 'skip');
SELECT window_start, window_end, COUNT(*) AS n
FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end;
