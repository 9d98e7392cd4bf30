-- A match of 30 000 rows: A+ takes the rows 1 .. 29 999 (v < 30 000) and B
-- the row 30 000; the matcher advances its partial match row by row (no
-- bound on a match's length). FIRST/LAST/SUM/COUNT/AVG over A's rows are
-- 1, 29 999, 29 999 * 30 000 / 2 = 449 985 000, 29 999 and 15 000. The rows
-- 30 001 .. 30 005 start partial matches that never find their B: at the
-- end of the input they fail, and nothing more is emitted.
CREATE TABLE t (v BIGINT, ts AS TO_TIMESTAMP_LTZ(v, 3), WATERMARK FOR ts AS ts)
  WITH ('connector' = 'datagen', 'number-of-rows' = '30005',
        'fields.v.kind' = 'sequence', 'fields.v.start' = '1', 'fields.v.end' = '30005');
SELECT * FROM t MATCH_RECOGNIZE (
  ORDER BY ts
  MEASURES FIRST(A.v) AS fa, LAST(A.v) AS la, SUM(A.v) AS sa, COUNT(A.*) AS na, AVG(A.v) AS aa,
    B.v AS b, PREV(B.v, 2) AS pb
  ONE ROW PER MATCH
  PATTERN (A+ B)
  DEFINE A AS A.v < 30000 AND A.v >= COALESCE(PREV(A.v), 0), B AS B.v = 30000
) MR;
