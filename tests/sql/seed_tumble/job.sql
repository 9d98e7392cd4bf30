-- The seed's worked example: a 10 s tumbling window with a 3 s watermark delay.
CREATE TABLE events (
  ts_ms BIGINT,
  v BIGINT,
  ts AS TO_TIMESTAMP_LTZ(ts_ms, 3),
  WATERMARK FOR ts AS ts - INTERVAL '3' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'events.json', 'format' = 'json');

CREATE TABLE late_events (v BIGINT, `watermark` TIMESTAMP(3), lateness_ms BIGINT)
WITH ('connector' = 'print', 'print-identifier' = 'late');

SET 'weir.late-records.table' = 'late_events';

SELECT window_start, window_end, SUM(v) AS total, COUNT(*) AS n
FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end;
