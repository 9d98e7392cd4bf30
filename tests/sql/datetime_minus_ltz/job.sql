-- (a - b) unit of two TIMESTAMP_LTZ values (instants) under a day-time
-- qualifier: the difference of their epoch milliseconds, whatever the
-- session time zone. The job runs in Europe/Berlin, where DST starts on
-- 2024-03-31 at 02:00: s = 2024-03-30 23:00 UTC (00:00 CET on the 31st),
-- e = 2024-03-31 23:00:00.250 UTC (01:00:00.250 CEST on April 1st), so
-- e - s is 1 day and 250 ms (EXTRACT DAY 1, HOUR 0), not the 25 hours
-- between the local wall times; row 2 is the negation, and s + (e - s)
-- SECOND is e again. NULL in, NULL out.
SET 'table.local-time-zone' = 'Europe/Berlin';
CREATE TABLE t (id INT, s_ms BIGINT, e_ms BIGINT,
                s AS TO_TIMESTAMP_LTZ(s_ms, 3), e AS TO_TIMESTAMP_LTZ(e_ms, 3))
  WITH ('connector' = 'filesystem', 'path' = 't.json', 'format' = 'json');
SELECT id, (e - s) SECOND > INTERVAL '1' DAY, EXTRACT(DAY FROM (e - s) DAY TO SECOND),
       EXTRACT(HOUR FROM (e - s) DAY TO SECOND), EXTRACT(SECOND FROM (e - s) MINUTE TO SECOND),
       CAST((e - s) SECOND AS STRING), s + (e - s) SECOND = e
FROM t;
