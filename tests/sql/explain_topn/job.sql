-- EXPLAIN of Top-N and deduplication: the rank range, whether the rank
-- number is a column, a PARTITION BY expression that rides along as a
-- hidden column and is dropped after the ranking, and Top-1 by the time
-- attribute as a Deduplicate.
CREATE TABLE t (k STRING, v INT, ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ms, 3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
CREATE TABLE o (k STRING, v INT, rn BIGINT) WITH ('connector' = 'blackhole');
CREATE TABLE d (k STRING, v INT) WITH ('connector' = 'blackhole');
EXPLAIN INSERT INTO o SELECT * FROM (
  SELECT k, v, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC) AS rn FROM t) WHERE rn BETWEEN 2 AND 3;
EXPLAIN INSERT INTO d SELECT k, v FROM (
  SELECT k, v, ROW_NUMBER() OVER (PARTITION BY UPPER(k) ORDER BY v) AS rn FROM t) WHERE rn <= 5 AND v > 0;
EXPLAIN INSERT INTO d SELECT k, v FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts DESC) AS rn FROM t) WHERE rn = 1;
