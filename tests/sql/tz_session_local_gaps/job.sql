-- Session windows over a TIMESTAMP_LTZ attribute in Europe/Berlin are
-- sessions of local wall time, as in Flink: their gaps are measured and
-- their bounds shown in local time. Key a: 01:50 CET and 03:10 CEST on
-- 2024-03-31 are 20 minutes apart as instants but 80 minutes apart on the
-- clock (02:00 CET springs forward to 03:00 CEST), so with a 30-minute gap
-- they are two sessions. Key b on 2024-10-27 (03:00 CEST falls back to
-- 02:00 CET): 02:50 CEST opens [02:50, 03:20); 02:05 CET opens [02:05,
-- 02:35), apart; 02:25 CET stretches that to [02:05, 02:55), which now
-- overlaps the first, and the three merge into [02:05, 03:20).
SET 'table.local-time-zone' = 'Europe/Berlin';
CREATE TABLE t (k STRING, ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ms, 3), WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
SELECT k, window_start, window_end, COUNT(*) AS n
FROM TABLE(SESSION(TABLE t PARTITION BY k, DESCRIPTOR(ts), INTERVAL '30' MINUTE))
GROUP BY k, window_start, window_end;
