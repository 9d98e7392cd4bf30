-- LEAD in a streaming OVER window reads rows that have not arrived: refused,
-- as in Flink.
CREATE TABLE t (k STRING, v INT, ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ms, 3), WATERMARK FOR ts AS ts)
  WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
SELECT k, v, LEAD(v) OVER (PARTITION BY k ORDER BY ts) FROM t;
