-- Legacy TUMBLE group window with TUMBLE_START/END/ROWTIME, HAVING, and a computed key.
CREATE TABLE t (user_id STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
SELECT UPPER(user_id) AS u,
       TUMBLE_START(ts, INTERVAL '1' MINUTE) AS ws,
       TUMBLE_END(ts, INTERVAL '1' MINUTE) AS we,
       TUMBLE_ROWTIME(ts, INTERVAL '1' MINUTE) AS wt,
       SUM(v) AS total, MIN(v) AS lo, MAX(v) AS hi
FROM t
GROUP BY UPPER(user_id), TUMBLE(ts, INTERVAL '1' MINUTE)
HAVING SUM(v) > 2;
