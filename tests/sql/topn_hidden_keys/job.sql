-- PARTITION BY and ORDER BY may name columns of the subquery's FROM that its
-- SELECT list leaves out (as in Flink): they are carried to the ranking and
-- dropped after it. Used to fail with "unknown column 'g'".
CREATE TABLE t (k STRING, g STRING, v INT, ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ms, 3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
SELECT 'byg', k FROM (SELECT k, ROW_NUMBER() OVER (PARTITION BY g ORDER BY v DESC) AS rn FROM t) WHERE rn = 1;
SELECT 'firstg', k, v FROM (SELECT k, v, ROW_NUMBER() OVER (PARTITION BY g ORDER BY ts) AS rn FROM t) WHERE rn = 1;
