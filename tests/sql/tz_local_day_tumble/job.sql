-- A 1-day TUMBLE over a TIMESTAMP_LTZ attribute is a day of
-- table.local-time-zone, as in Flink: in Europe/Berlin 2024-03-31 lasts 23
-- hours (CET to CEST at 02:00) and 2024-10-27 lasts 25 (CEST to CET at
-- 03:00). One event per hour of UTC: 23 and 25 land in those local days.
-- window_start / window_end / window_time show local wall time.
SET 'table.local-time-zone' = 'Europe/Berlin';
CREATE TABLE t (ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ms, 3), WATERMARK FOR ts AS ts - INTERVAL '1' HOUR)
WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
SELECT window_start, window_end, window_time, COUNT(*) AS n, MIN(ts) AS first_ts
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' DAY))
GROUP BY window_start, window_end, window_time;
