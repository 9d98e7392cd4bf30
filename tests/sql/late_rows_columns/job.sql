-- A late row carries the whole input row and its event time: here v is
-- read only inside a CASE and ts (the event time) and ts_ms by no
-- aggregate at all, and all of them reach the late-records table.
-- (b, 130, 3000) arrives at W = 4000 and (a, 500, 8500) at W = 9000: both
-- after their 1 s windows ended.
CREATE TABLE src (k STRING, v BIGINT, ts_ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ts_ms, 3),
  WATERMARK FOR ts AS ts - INTERVAL '0' SECOND) WITH ('connector' = 'filesystem', 'path' = 'in.json', 'format' = 'json');
CREATE TABLE late_rows (k STRING, v BIGINT, ts_ms BIGINT, ts TIMESTAMP_LTZ(3), `watermark` TIMESTAMP(3), lateness_ms BIGINT)
  WITH ('connector' = 'print', 'print-identifier' = 'late');
SET 'weir.late-records.table' = 'late_rows';
SELECT window_start, k, SUM(CASE WHEN v > 100 THEN 1 ELSE 0 END) AS big, COUNT(*) AS n
FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '1' SECOND))
GROUP BY window_start, window_end, k;
