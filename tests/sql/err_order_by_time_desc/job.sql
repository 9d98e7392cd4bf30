-- ORDER BY the event-time attribute DESC without LIMIT is refused (Flink's
-- temporal sort is ascending only), naming the construct.
CREATE TABLE t (k STRING, v INT, ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ms, 3), WATERMARK FOR ts AS ts)
  WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
SELECT k, v, ts FROM t ORDER BY ts DESC;
