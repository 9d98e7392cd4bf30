-- IN and NOT IN compare exact numbers exactly, each at its own scale, as
-- = does: a 38-digit DECIMAL(38, 0) against a DECIMAL(12, 4) column and
-- 1.5 is TRUE or FALSE, never NULL for want of a common type (the one that
-- keeps the larger scale, DECIMAL(38, 4), has no room for it). Three-valued
-- as a chain of =: no match and a NULL in the list (or a NULL b) is NULL.
-- Lists of literals: a set kept in a DECIMAL that holds each literal (128
-- bits where they need it), or compared one by one when no DECIMAL of 38
-- digits holds them all (a 38-digit integer beside 1.5); a BIGINT against
-- decimals is compared exactly too (9007199254740993 is not ...992.0).
CREATE TABLE t (a DECIMAL(38, 0), b DECIMAL(12, 4), c BIGINT) WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
CREATE TABLE o (a STRING, in_b STRING, not_in_b STRING, in_null STRING, in_wide STRING, not_in_wide STRING,
  in_mixed STRING, b_in STRING, c_in STRING, b_in_cols STRING) WITH ('connector' = 'print');
INSERT INTO o SELECT CAST(a AS STRING),
  CAST(a IN (b, 1.5) AS STRING),
  CAST(a NOT IN (b, 1.5) AS STRING),
  CAST(a NOT IN (1.5, 2, NULL) AS STRING),
  CAST(a IN (12345678901234567890123456789012345678, -3, 2) AS STRING),
  CAST(a NOT IN (-12345678901234567890123456789012345678, 1) AS STRING),
  CAST(a IN (12345678901234567890123456789012345678, 1.5) AS STRING),
  CAST(b IN (2, 1.5, 12345678901234567890123.0) AS STRING),
  CAST(c IN (9007199254740992.0, 2.00, 7.5) AS STRING),
  CAST(b IN (a, c) AS STRING)
FROM t;
