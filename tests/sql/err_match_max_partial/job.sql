-- The bound on live partial matches takes a positive integer.
SET 'weir.match.max-partial-matches' = '0';
CREATE TABLE t (v BIGINT, ts AS TO_TIMESTAMP_LTZ(v, 3), WATERMARK FOR ts AS ts)
  WITH ('connector' = 'datagen', 'number-of-rows' = '10');
SELECT * FROM t MATCH_RECOGNIZE (
  ORDER BY ts
  MEASURES COUNT(A.v) AS n
  PATTERN (A+ B)
  DEFINE B AS B.v < 0
) MR;
