-- A candidate match may hold at most 10 000 rows: A+ takes every row of a
-- partition whose B never comes, so at the 10 001st the job fails, naming
-- the bound and the ways out (rather than growing without end).
CREATE TABLE t (v BIGINT, ts AS TO_TIMESTAMP_LTZ(v, 3), WATERMARK FOR ts AS ts)
  WITH ('connector' = 'datagen', 'number-of-rows' = '10005',
        'fields.v.kind' = 'sequence', 'fields.v.start' = '1', 'fields.v.end' = '10005');
SELECT * FROM t MATCH_RECOGNIZE (
  ORDER BY ts
  MEASURES COUNT(A.v) AS n
  ONE ROW PER MATCH
  PATTERN (A+ B)
  DEFINE B AS B.v < 0
) MR;
