-- A window join of 1-hour windows over TIMESTAMP_LTZ attributes in
-- Europe/Berlin on 2024-10-27, when 03:00 CEST falls back to 02:00 CET
-- (01:00Z): the local hour [02:00, 03:00) holds both passes (00:00Z to
-- 02:00Z), so left row 2 (02:30 CEST) meets right row 2 (02:10 CET) and
-- left row 3 (02:30 CET) right row 3 (02:50 CEST), as in Flink. Right row
-- 5 (02:40 CEST) comes after right row 2 (02:10 CET): behind that side's
-- watermark as an instant, but its window has not ended in local time, so
-- it joins. Right row 6 (01:45 CEST) comes after right row 4 (03:00 CET):
-- its window [01:00, 02:00) has ended, so it is late and left row 6 stays
-- unmatched (NULL on the right).
SET 'table.local-time-zone' = 'Europe/Berlin';
CREATE TABLE l (num INT, ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ms, 3), WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'l.csv', 'format' = 'csv');
CREATE TABLE r (num INT, ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ms, 3), WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'r.csv', 'format' = 'csv');
SELECT L.num, R.num, L.window_start, L.window_end, CAST(L.window_time AS STRING) AS wt
FROM (SELECT * FROM TABLE(TUMBLE(TABLE l, DESCRIPTOR(ts), INTERVAL '1' HOUR))) L
LEFT JOIN (SELECT * FROM TABLE(TUMBLE(TABLE r, DESCRIPTOR(ts), INTERVAL '1' HOUR))) R
ON L.num = R.num AND L.window_start = R.window_start AND L.window_end = R.window_end;
