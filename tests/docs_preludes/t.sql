-- Small tables named t, l, r and o that examples of docs/sql.md read
-- (tests/docs_examples.py). Only planned.
CREATE TABLE t (
  id BIGINT, k STRING, v BIGINT, s STRING, day STRING, user_id STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = 't.json', 'format' = 'json');
CREATE TABLE l (
  num BIGINT, k STRING, v BIGINT, row_time TIMESTAMP(3),
  WATERMARK FOR row_time AS row_time - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'l.json', 'format' = 'json');
CREATE TABLE r (
  num BIGINT, v BIGINT, t STRING, row_time TIMESTAMP(3),
  WATERMARK FOR row_time AS row_time - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'r.json', 'format' = 'json');
CREATE TABLE o (id BIGINT, k STRING, t STRING)
  WITH ('connector' = 'filesystem', 'path' = 'o.json', 'format' = 'json');
