-- The key columns of a row log's stored rows come back exact: an
-- insert-only side keeps its rows without the columns its join key holds
-- (row log 2) and takes them from the row that probes it. Both sides'
-- key columns are printed, so a value taken from the wrong row or column
-- shows: DOUBLE (-0.0 meets 0.0: each side prints its own), DECIMAL of
-- precision <= 18 and > 18, STRING (empty, and one with a NUL-free
-- multibyte text), a NULL under IS NOT DISTINCT FROM, and two keys in an
-- order other than the columns'.
-- l: 1 (-0.0, 1.50, 12345678901234567890.12345, '', NULL, 'x'),
--    2 (7.5, -3.25, 0.00001, 'ü€', 4, 'y'), 3 (NULL ...)
-- r: 11 (0.0, 1.50, 12345678901234567890.12345, '', NULL, 'x'),
--    12 (7.5, -3.25, 0.00001, 'ü€', 4, 'y'), 13 (-0.0, ...)
CREATE TABLE l (id INT, d DOUBLE, m DECIMAL(10, 2), w DECIMAL(30, 5), s STRING, n INT, t STRING)
  WITH ('connector' = 'filesystem', 'path' = 'l.csv', 'format' = 'csv');
CREATE TABLE r (id INT, d DOUBLE, m DECIMAL(10, 2), w DECIMAL(30, 5), s STRING, n INT, t STRING)
  WITH ('connector' = 'filesystem', 'path' = 'r.csv', 'format' = 'csv');
CREATE TABLE od (a INT, ad DOUBLE, b INT, bd DOUBLE) WITH ('connector' = 'print', 'print-identifier' = 'od');
CREATE TABLE om (a INT, am DECIMAL(10, 2), aw DECIMAL(30, 5), b INT, bm DECIMAL(10, 2), bw DECIMAL(30, 5))
  WITH ('connector' = 'print', 'print-identifier' = 'om');
CREATE TABLE os (a INT, s STRING, b INT, bs STRING) WITH ('connector' = 'print', 'print-identifier' = 'os');
CREATE TABLE onn (a INT, an INT, at STRING, b INT, bn INT, bt STRING)
  WITH ('connector' = 'print', 'print-identifier' = 'onn');
EXECUTE STATEMENT SET BEGIN
  INSERT INTO od SELECT l.id, l.d, r.id, r.d FROM l JOIN r ON l.d = r.d;
  INSERT INTO om SELECT l.id, l.m, l.w, r.id, r.m, r.w FROM l JOIN r ON l.w = r.w AND l.m = r.m;
  INSERT INTO os SELECT l.id, l.s, r.id, r.s FROM l JOIN r ON l.s = r.s;
  INSERT INTO onn SELECT l.id, l.n, l.t, r.id, r.n, r.t FROM l JOIN r ON l.t = r.t AND l.n IS NOT DISTINCT FROM r.n;
END;
