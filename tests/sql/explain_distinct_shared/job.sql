-- EXPLAIN of COUNT(DISTINCT)s of one column with different FILTERs (q16's
-- shape): the pre-projection carries each input column that aggregates take
-- as their argument once, so the COUNT(DISTINCT u) calls share one view of
-- u's values in state (one map entry per value) instead of one map each.
CREATE TABLE t (k STRING, u BIGINT, a BIGINT, p BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
  WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
CREATE TABLE o (k STRING, n BIGINT, n1 BIGINT, n2 BIGINT, a0 BIGINT, a1 BIGINT, m BIGINT, s BIGINT)
  WITH ('connector' = 'blackhole');
EXPLAIN INSERT INTO o SELECT k,
    count(distinct u), count(distinct u) filter (where p < 10), count(distinct u) filter (where p >= 10),
    count(distinct a), count(distinct a) filter (where p < 10), max(u), sum(a)
  FROM t GROUP BY k;
