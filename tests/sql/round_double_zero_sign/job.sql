-- ROUND and TRUNCATE of a DOUBLE go through Java's BigDecimal, which has no
-- signed zero: a negative value that rounds to zero, and -0.0 itself, give
-- 0.0 (not -0.0). Expected, by hand: -0.4 to 0 places -> 0.0; -0.5 truncated
-- -> 0.0; -40.0 to -2 places (HALF_UP of -0.4 hundreds) -> 0.0; -0.001
-- truncated or rounded to 2 places -> 0.0; -0.0 to 1 place -> 0.0; -0.6 to
-- 0 places -> -1.0 and -1.5 truncated -> -1.0 keep their sign.
CREATE TABLE t (v DOUBLE, d INT, tr BOOLEAN)
  WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
SELECT v, d, IF(tr, TRUNCATE(v, d), ROUND(v, d)) FROM t;
