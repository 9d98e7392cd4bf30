-- ORDER BY ... LIMIT over a stream is refused, naming the construct and
-- pointing at ROW_NUMBER() for a Top-N.
CREATE TABLE t (k STRING, v INT, ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ms, 3), WATERMARK FOR ts AS ts)
  WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
SELECT k, v FROM t ORDER BY v DESC LIMIT 3;
