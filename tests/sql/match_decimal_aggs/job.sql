-- MATCH_RECOGNIZE aggregates over a DECIMAL(10, 2) and a DATE, in DEFINE
-- and MEASURES. Derived by hand: A+ takes rows 1-5 (SUM(A.p) with the
-- candidate stays below 5 until row 6: 12.84), B is row 6 (9.99 > AVG(A.p)
-- = 2.85 / 4); SUM is DECIMAL(38, 2) 2.85, AVG DECIMAL(38, 6) 0.712500,
-- MIN/MAX of p -1.00 / 2.50 and of d 2024-01-01 / 2024-01-05 (row 4's
-- NULLs skipped), COUNT(A.p) 4.
CREATE TABLE t (id INT, k STRING, p DECIMAL(10, 2), d DATE, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
  WITH ('connector' = 'filesystem', 'path' = 't.json', 'format' = 'json');
SELECT * FROM t MATCH_RECOGNIZE (
  PARTITION BY k ORDER BY ts
  MEASURES FIRST(A.id) AS f, LAST(A.id) AS l, SUM(A.p) AS s, AVG(A.p) AS av, MIN(A.p) AS mn, MAX(A.p) AS mx,
           MIN(A.d) AS dmin, MAX(A.d) AS dmax, COUNT(A.p) AS c, B.p AS bp
  ONE ROW PER MATCH AFTER MATCH SKIP PAST LAST ROW
  PATTERN (A+ B)
  DEFINE A AS A.p IS NULL OR SUM(A.p) < 5, B AS B.p > AVG(A.p)
);
