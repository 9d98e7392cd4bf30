-- java.lang.Math's special cases, which C's libm answers otherwise, and
-- Double.compare, which Flink's GREATEST and LEAST use. Expected, by hand
-- from Math's documentation: POWER of 1 to NaN and of +-1 to an infinite
-- power is NaN (C gives 1.0); SIGN(-0.0) is -0.0 (Math.signum; it was
-- 0.0); RADIANS(x) is x * (pi / 180) in one multiplication (Java 9 and
-- later: RADIANS(456) = 7.958701389094143, not 7.958701389094142 from
-- 456 / 180 * pi); GREATEST puts NaN above every number and LEAST below
-- none (GREATEST(1.0, NaN) was 1.0, LEAST(NaN, 1.0) NaN), and -0.0 below
-- 0.0 (GREATEST(-0.0, 0.0) is 0.0, LEAST(0.0, -0.0) is -0.0).
CREATE TABLE t (a STRING, b STRING, r INT)
  WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
SELECT a, b, POWER(x, y), SIGN(x), RADIANS(r), GREATEST(x, y), LEAST(x, y), GREATEST(y, x), LEAST(y, x)
FROM (SELECT *, CAST(a AS DOUBLE) AS x, CAST(b AS DOUBLE) AS y FROM t);
