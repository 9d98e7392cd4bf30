-- The temporal sort keeps the time attribute: a window aggregation can
-- follow it. Windows of 2 s over the sorted rows (f, 2000, is late at the
-- sort: 1000 and 2000 came out at W = 3000 before it arrived).
CREATE TABLE t (k STRING, v INT, ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ms, 3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND) WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
CREATE VIEW sorted AS SELECT * FROM t ORDER BY ts;
SELECT window_start, COUNT(*) AS n, SUM(v) AS s
FROM TABLE(TUMBLE(TABLE sorted, DESCRIPTOR(ts), INTERVAL '2' SECOND)) GROUP BY window_start, window_end;
