-- Instants after 2037, where the zoneinfo file's transition table ends: the
-- TZif footer's POSIX rule (EST5EDT,M3.2.0,M11.1.0) still switches DST.
-- 2040: DST starts Sunday 11 March at 02:00 EST (07:00Z) and ends Sunday
-- 4 November at 02:00 EDT (06:00Z). The last row reads a wall time in the
-- spring-forward gap as java.time does: moved forward by the gap.
SET 'table.local-time-zone' = 'America/New_York';
CREATE TABLE t (id INT, ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ms, 3), WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
SELECT id, CAST(ts AS TIMESTAMP(3)) AS local_ts, HOUR(ts) AS h, DATE_FORMAT(ts, 'yyyy-MM-dd HH:mm') AS txt,
       CAST(TIMESTAMP '2040-03-11 02:30:00' AS TIMESTAMP_LTZ(3)) AS gap
FROM t;
