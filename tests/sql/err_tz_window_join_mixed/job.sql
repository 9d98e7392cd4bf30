-- A window join needs windows over the same kind of time attribute: the
-- local days of a TIMESTAMP_LTZ attribute and the days of a TIMESTAMP
-- attribute end at other instants, so the join is refused (as Flink does).
SET 'table.local-time-zone' = 'Europe/Berlin';
CREATE TABLE l (num INT, ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ms, 3), WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
CREATE TABLE r (num INT, ms BIGINT, ts AS TO_TIMESTAMP(FROM_UNIXTIME(ms / 1000)), WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
SELECT L.num, R.num
FROM (SELECT * FROM TABLE(TUMBLE(TABLE l, DESCRIPTOR(ts), INTERVAL '1' DAY))) L
JOIN (SELECT * FROM TABLE(TUMBLE(TABLE r, DESCRIPTOR(ts), INTERVAL '1' DAY))) R
ON L.num = R.num AND L.window_start = R.window_start AND L.window_end = R.window_end;
