-- A window Top-N of local days over a TIMESTAMP_LTZ attribute in
-- America/New_York, across 2024-03-10, when 02:00 EST springs forward to
-- 03:00 EDT (07:00Z): that local day lasts 23 hours, 05:00Z to 04:00Z of
-- the next day. Row d (23:30 EDT on 03-10, 03:30Z on 03-11) belongs to
-- 03-10 and is second there; b is third and out. Row g (23:50 EDT on
-- 03-10) comes after e (00:10 EDT on 03-11), when the local day 03-10 has
-- ended: it is late and dropped, as Flink drops it.
SET 'table.local-time-zone' = 'America/New_York';
CREATE TABLE t (id STRING, price INT, ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ms, 3), WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
SELECT window_start, window_end, id, price, rn FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY price DESC) AS rn
  FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' DAY))
) WHERE rn <= 2;
