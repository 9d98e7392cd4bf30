-- ORDER BY the event-time attribute on a stream (Flink's temporal sort): a
-- row waits until the watermark (max ms - 2 s, after each row) passes its
-- time, then rows come out in time order, those of one time by the other
-- ORDER BY columns (equal ones in arrival order). A row not after the last
-- time emitted is late and dropped (f, 2000, after 1000 and 2000 came out
-- at W = 3000); i (2500) is behind W = 3000 but after 2000, so it still
-- comes out, before a. The sinks write one file each, whose order `check`
-- compares line by line.
CREATE TABLE t (k STRING, v INT, ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ms, 3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND) WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
CREATE TABLE by_time (k STRING, v INT, ms BIGINT) WITH ('connector' = 'filesystem', 'path' = 'by_time', 'format' = 'csv');
CREATE TABLE by_time_v (k STRING, v INT, ms BIGINT) WITH ('connector' = 'filesystem', 'path' = 'by_time_v', 'format' = 'csv');
INSERT INTO by_time SELECT k, v, ms FROM (SELECT k, v, ms, ts FROM t ORDER BY ts);
INSERT INTO by_time_v SELECT k, v, ms FROM (SELECT * FROM t ORDER BY t.ts ASC, v DESC);
-- ORDER BY a column the SELECT does not show, and an expression: hidden sort keys
CREATE TABLE hidden (k STRING, v INT) WITH ('connector' = 'filesystem', 'path' = 'hidden', 'format' = 'csv');
INSERT INTO hidden SELECT k, v FROM (SELECT k, v FROM t ORDER BY ts, v + 1 DESC);
