-- MATCH_RECOGNIZE calls over expressions of one variable's columns (or of
-- plain columns: every row of the match), computed before the match.
-- Derived by hand: A is rows 1-5, B row 6 (as in match_decimal_aggs, with
-- the DEFINE's SUM over A.p + 0.00); SUM(A.p + A.p) = 5.70, SUM(A.id * 10
-- + 1) = 155, MAX(A.id / 2.0) = 2.5, LAST(B.p + 1) = 10.99, FIRST(A.id *
-- 100, 1) = 200 (the second A row), AVG(id * 1.0) over rows 1-6 = 3.5.
CREATE TABLE t (id INT, k STRING, p DECIMAL(10, 2), d DATE, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
  WITH ('connector' = 'filesystem', 'path' = 't.json', 'format' = 'json');
SELECT * FROM t MATCH_RECOGNIZE (
  PARTITION BY k ORDER BY ts
  MEASURES FIRST(A.id) AS f, LAST(A.id) AS l, SUM(A.p + A.p) AS s2, SUM(A.id * 10 + 1) AS si,
           MAX(CAST(A.id AS DOUBLE) / 2) AS mx, LAST(B.p + 1) AS lb, FIRST(A.id * 100, 1) AS fa,
           AVG(id * 1.0) AS aall
  ONE ROW PER MATCH AFTER MATCH SKIP PAST LAST ROW
  PATTERN (A+ B)
  DEFINE A AS A.p IS NULL OR SUM(A.p + 0.00) < 5, B AS B.p > AVG(A.p)
);
