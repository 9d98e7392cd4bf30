-- ORDER BY the event-time attribute, then v DESC, when hundreds of rows
-- share one time (300 at 2000, 500 at 4000): the rows of one time come out
-- by v, those with equal v in arrival order (k0, k1, ... are numbered in
-- file order). The rows of a time are held until the watermark passes it
-- and sorted when it does; a burst this size takes the sort's merge path.
CREATE TABLE t (k STRING, v INT, ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ms, 3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND) WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
CREATE TABLE by_time_v (k STRING, v INT, ms BIGINT) WITH ('connector' = 'filesystem', 'path' = 'by_time_v', 'format' = 'csv');
INSERT INTO by_time_v SELECT k, v, ms FROM (SELECT * FROM t ORDER BY t.ts ASC, v DESC);
