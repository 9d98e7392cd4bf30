-- A VALUES column's type is Flink's least restrictive type of its cells,
-- as a set operation's columns widen: INT counts as DECIMAL(10, 0) and
-- BIGINT as DECIMAL(19, 0) beside a DECIMAL, so 1 and 1.5 make a
-- DECIMAL(11, 1) (not DECIMAL(20, 1)); INT and BIGINT give BIGINT, DOUBLE
-- wins over both; past 38 digits the scale is cut so that every value
-- fits (a 38-digit integer beside 1.25 is DECIMAL(38, 0), 1.25 rounded to
-- 1, rather than DECIMAL(38, 2), which has no room for the integer); a
-- NULL cell makes the column nullable.
CREATE TABLE o (i_dec STRING, i_dec_v STRING, i_big STRING, big_dec STRING, dec_dbl STRING, i_dbl STRING,
  decs STRING, wide STRING, wide_v STRING, big_lit STRING, i_null STRING) WITH ('connector' = 'print');
INSERT INTO o SELECT TYPEOF(a), CAST(a AS STRING), TYPEOF(b), TYPEOF(c), TYPEOF(d), TYPEOF(e),
  TYPEOF(f), TYPEOF(g), CAST(g AS STRING), TYPEOF(h), TYPEOF(i) FROM (VALUES
  (1, 1, 3000000000, 1.5, 1, 1.25, 12345678901234567890123456789012345678, 1, 1),
  (1.5, 3000000000, 1.5, 2.5E0, 2.5E0, 123.4567, 1.25, 12345678901234567890, NULL))
  AS t(a, b, c, d, e, f, g, h, i);
