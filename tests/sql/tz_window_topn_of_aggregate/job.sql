-- A window Top-N over a window aggregation of local days (America/New_York,
-- 2024-03-10 lasts 23 hours: 05:00Z to 04:00Z): the aggregation's rows come
-- out when the local day has ended, before the watermark that ended it
-- moves on, so the Top-N takes them on time and ranks them per local day.
-- Row g (23:50 EDT on 03-10) arrives after that day ended: the aggregation
-- drops it, so c and d stay first and second.
SET 'table.local-time-zone' = 'America/New_York';
CREATE TABLE t (id STRING, price INT, ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ms, 3), WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
CREATE VIEW agg AS SELECT window_start, window_end, window_time, id, SUM(price) AS p
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' DAY)) GROUP BY window_start, window_end, window_time, id;
SELECT window_start, window_end, id, p, rn FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY p DESC) AS rn FROM agg) WHERE rn <= 2;
