-- CASE, IF and COALESCE over a DECIMAL(38, 0) and a DECIMAL(12, 4) give
-- Flink's least restrictive type, DECIMAL(38, 0): the integral digits of
-- both kept, the scale cut to fit 38 digits, so a 38-digit value comes
-- through whole and 2.5 is rounded half-up to 3. (The scale-keeping type,
-- DECIMAL(38, 4), had no room for the 38-digit value: it became NULL, and
-- COALESCE went on to the next argument.) Comparisons compare exactly,
-- each side at its own scale: IS DISTINCT FROM and NULLIF see 2 and 1.5
-- apart, 2 and 2.0000 equal, and a 38-digit value apart from NULL.
CREATE TABLE t (a DECIMAL(38, 0), b DECIMAL(12, 4)) WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
CREATE TABLE o (c STRING, c_type STRING, cs STRING, cs_type STRING, i STRING, d STRING, nd STRING, nd_narrow STRING, n STRING) WITH ('connector' = 'print');
INSERT INTO o SELECT CAST(COALESCE(a, b) AS STRING), TYPEOF(COALESCE(a, b)),
  CAST(CASE WHEN b > 2 THEN b ELSE a END AS STRING), TYPEOF(CASE WHEN b > 2 THEN b ELSE a END),
  CAST(IF(b > 2, b, a) AS STRING), CAST(a IS DISTINCT FROM b AS STRING), CAST(a IS NOT DISTINCT FROM b AS STRING),
  CAST(CAST(b AS DECIMAL(6, 2)) IS NOT DISTINCT FROM 2 AS STRING), CAST(NULLIF(a, b) AS STRING) FROM t;
