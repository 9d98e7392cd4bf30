-- Sub-second intervals in Flink's spelling: MILLISECOND(S) and
-- MICROSECOND(S) wherever an interval unit goes. With a 500 ms watermark
-- delay, (a, 1200) arrives at W = 1100 and is on time in [0, 1.5 s);
-- (a, 1400) arrives at W = 2600, after that window ended: late, dropped;
-- (b, 2800) is on time in [1.5 s, 3 s).
CREATE TABLE src (k STRING, ts_ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ts_ms, 3),
  WATERMARK FOR ts AS ts - INTERVAL '500' MILLISECOND)
WITH ('connector' = 'filesystem', 'path' = 'in.json', 'format' = 'json');
SELECT window_start, window_end, COUNT(*) AS n
FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '1500' MILLISECONDS))
GROUP BY window_start, window_end;
SELECT 'units', ts_ms, TIMESTAMPADD(MILLISECOND, 250, ts) AS plus,
  TIMESTAMPDIFF(MILLISECOND, ts, ts + INTERVAL '3000000' MICROSECONDS) AS diff_ms,
  EXTRACT(MICROSECOND FROM ts) AS us, EXTRACT(MILLISECOND FROM ts) AS ms
FROM src WHERE k = 'b' AND ts_ms > 2000;
