-- ORDER BY without LIMIT over a stream, by a column that is not a time
-- attribute, is refused, naming the construct (Flink neither).
CREATE TABLE t (k STRING, v INT, ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ms, 3), WATERMARK FOR ts AS ts)
  WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
SELECT k, v FROM t ORDER BY v DESC;
