-- The operand of an IN inside a correlated subquery reads the query around
-- that subquery (a.x IN (...) inside EXISTS (SELECT ... FROM b ...)): it is
-- carried into the middle level's rows as the columns that levels further
-- down read are, so that the middle level's semi join compares it.
--   a (id, x, k, q), b (id, x, k), c (id, x, y); rows checked against SQLite
--   (lateral_rows as the equivalent join: SQLite has no LATERAL).
CREATE TABLE a (id INT, x INT, k INT, q INT) WITH ('connector' = 'filesystem', 'path' = 'a.csv', 'format' = 'csv');
CREATE TABLE b (id INT, x INT, k INT) WITH ('connector' = 'filesystem', 'path' = 'b.csv', 'format' = 'csv');
CREATE TABLE c (id INT, x INT, y INT) WITH ('connector' = 'filesystem', 'path' = 'c.csv', 'format' = 'csv');
CREATE TABLE exists_in (id INT) WITH ('connector' = 'print', 'print-identifier' = 'exists_in');
CREATE TABLE in_in (id INT) WITH ('connector' = 'print', 'print-identifier' = 'in_in');
CREATE TABLE lateral_rows (id INT, bx INT) WITH ('connector' = 'print', 'print-identifier' = 'lateral_rows');
EXECUTE STATEMENT SET BEGIN
-- qualified, under EXISTS
INSERT INTO exists_in SELECT a.id FROM a WHERE EXISTS (
  SELECT 1 FROM b WHERE b.id = a.id AND a.x IN (SELECT c.x FROM c WHERE c.y > b.k));
-- a bare name (q: only a has it), under IN
INSERT INTO in_in SELECT a.id FROM a WHERE a.x IN (
  SELECT b.x FROM b WHERE q IN (SELECT c.y FROM c WHERE c.x >= b.k));
-- an expression of two outer columns, in a LATERAL derived table's rows
INSERT INTO lateral_rows SELECT a.id, s.bx FROM a, LATERAL (
  SELECT b.x AS bx FROM b WHERE b.id = a.id + 1 AND a.k + a.x IN (SELECT c.x + c.y FROM c WHERE c.y > b.k)) AS s;
END;
