-- Top-N and deduplication (ROW_NUMBER() OVER ... in a subquery, bounded
-- by the outer WHERE): with the rank number every shifted rank is updated;
-- without it, the row that enters is +I and the one pushed out -D; Top-1 by
-- the time attribute is a deduplication (keep the last row: -U old, +U new).
-- A lower bound (rn = 2) updates the ranks as with the number, as Flink
-- (its unnumbered way cannot skip ranks): a 2 takes rank 2 from a 5, -U/+U.
CREATE TABLE t (k STRING, v INT, ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ms, 3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
SELECT 'ranked', * FROM (SELECT k, v, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC) AS rn FROM t) WHERE rn <= 2;
SELECT 'top2', k, v FROM (SELECT k, v, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC) AS rn FROM t) WHERE 2 >= rn;
SELECT 'second', k, v FROM (SELECT k, v, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v ASC) AS rn FROM t) WHERE rn = 2 AND v > 1;
SELECT 'last', k, v, ms FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts DESC) AS rn FROM t) WHERE rn = 1;
SELECT 'first', k, v, ms FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts) AS rn FROM t) WHERE rn <= 1;
