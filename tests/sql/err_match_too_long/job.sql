-- Matching keeps the live partial matches of a start row; their number is
-- bounded by 'weir.match.max-partial-matches'. B's condition reads FIRST(A.v),
-- so the B runs that start after 1, 2, 3 ... rows of A are different partial
-- matches (none can stand for another), one more per row while C never comes:
-- past 1 000 of them the job fails, naming the setting.
SET 'weir.match.max-partial-matches' = '1000';
CREATE TABLE t (v BIGINT, ts AS TO_TIMESTAMP_LTZ(v, 3), WATERMARK FOR ts AS ts)
  WITH ('connector' = 'datagen', 'number-of-rows' = '3000',
        'fields.v.kind' = 'sequence', 'fields.v.start' = '1', 'fields.v.end' = '3000');
SELECT * FROM t MATCH_RECOGNIZE (
  ORDER BY ts
  MEASURES COUNT(A.v) AS n
  ONE ROW PER MATCH
  PATTERN (A+ B+ C)
  DEFINE B AS B.v > FIRST(A.v), C AS C.v < 0
) MR;
