-- Window deduplication (the first row per key and local hour) over a
-- TIMESTAMP_LTZ attribute in America/New_York on 2024-11-03, when 02:00
-- EDT falls back to 01:00 EST (06:00Z): the local hour [01:00, 02:00)
-- holds both passes. Row 2 (01:10 EST) shows an earlier local time than
-- row 1 (01:20 EDT) but is the later instant, so row 1 is A's first. The
-- rows of a window come out at its window_time, whose instant is the first
-- pass's 01:59:59.999 (05:59:59.999Z), as the window aggregation's.
SET 'table.local-time-zone' = 'America/New_York';
CREATE TABLE t (id INT, k STRING, ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ms, 3), WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
SELECT window_start, window_end, k, id, CAST(ts AS STRING) AS local_ts FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end, k ORDER BY ts ASC) AS rn
  FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' HOUR))
) WHERE rn = 1;
