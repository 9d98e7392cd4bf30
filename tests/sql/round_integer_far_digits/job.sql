-- ROUND and TRUNCATE of INT and BIGINT at any number of digits, as Flink's
-- BigDecimal code: the value rounded HALF_UP (or truncated) exactly, then its
-- low 32 or 64 bits (intValue / longValue). Expected, by hand:
-- 5 at -40 digits -> 0 (weir died of SIGFPE: 10^40 overflowed 128 bits);
-- 2147483647 at -1 -> 2147483650, whose low 32 bits are -2147483646;
-- 9000000000000000000 at -20 -> 0, at -19 -> 10^19, whose low 64 bits are
-- -8446744073709551616 (both were NULL); -9223372036854775808 at -1 ->
-- -9223372036854775810 -> 9223372036854775806 (was NULL); TRUNCATE keeps
-- 9000000000000000000 at -19 as 0; -2147483648 at -1 rounds to
-- -2147483650 -> 2147483646; a DOUBLE at -2147483648 digits is 0.0 and at
-- 2147483647 itself.
CREATE TABLE t (i INT, b BIGINT, d INT, w DOUBLE)
  WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
SELECT i, b, d, ROUND(i, d), TRUNCATE(i, d), ROUND(b, d), TRUNCATE(b, d), ROUND(w, d) FROM t;
