-- In America/New_York the hour 01:00-02:00 of 2024-11-03 happens twice
-- (EDT, then EST from 06:00Z). Half-hour windows of local time collect
-- both passes: a window ending in the repeated hour fires only after its
-- second pass (as Flink registers the later instant of an ambiguous end),
-- so no row of the second pass is late.
SET 'table.local-time-zone' = 'America/New_York';
CREATE TABLE t (id INT, ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ms, 3), WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
SELECT window_start, window_end, COUNT(*) AS n, SUM(id) AS ids
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '30' MINUTE))
GROUP BY window_start, window_end;
