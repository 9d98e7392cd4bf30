-- A bare name n subquery levels down (3, 4, 5) binds in the nearest
-- enclosing scope that has it, also where the levels further out have it
-- too and the query names their column qualified elsewhere (so that it is
-- carried into the levels between beside the nearer one).
--   a (id, x, k), b (id, x, k), c (id, x, y), d (id, y, z), e (id, w)
-- Checked against SQLite (the same rules of scope) over the same rows.
CREATE TABLE a (id INT, x INT, k INT) WITH ('connector' = 'filesystem', 'path' = 'a.csv', 'format' = 'csv');
CREATE TABLE b (id INT, x INT, k INT) WITH ('connector' = 'filesystem', 'path' = 'b.csv', 'format' = 'csv');
CREATE TABLE c (id INT, x INT, y INT) WITH ('connector' = 'filesystem', 'path' = 'c.csv', 'format' = 'csv');
CREATE TABLE d (id INT, y INT, z INT) WITH ('connector' = 'filesystem', 'path' = 'd.csv', 'format' = 'csv');
CREATE TABLE e (id INT, w INT) WITH ('connector' = 'filesystem', 'path' = 'e.csv', 'format' = 'csv');
CREATE TABLE three (id INT) WITH ('connector' = 'print', 'print-identifier' = 'three');
CREATE TABLE three_two (id INT) WITH ('connector' = 'print', 'print-identifier' = 'three_two');
CREATE TABLE four (id INT) WITH ('connector' = 'print', 'print-identifier' = 'four');
CREATE TABLE four_in (id INT) WITH ('connector' = 'print', 'print-identifier' = 'four_in');
CREATE TABLE five (id INT) WITH ('connector' = 'print', 'print-identifier' = 'five');
EXECUTE STATEMENT SET BEGIN
-- three levels: k is b.k (c has none; a has one, named a.k too), x is c.x
INSERT INTO three SELECT a.id FROM a WHERE EXISTS (
  SELECT 1 FROM b WHERE b.id = a.id AND b.x IN (
    SELECT c.x FROM c WHERE c.y = k AND x >= a.k));
-- three levels, the middle one with two subqueries: k after the first is still b.k (a.k named)
INSERT INTO three_two SELECT a.id FROM a WHERE EXISTS (
  SELECT 1 FROM b WHERE b.id >= a.id AND EXISTS (SELECT 1 FROM c WHERE c.y = a.k) AND EXISTS (
    SELECT 1 FROM d WHERE d.y = k AND a.x > 0));
-- four levels: x is c.x (b and a have one too; a.x named), k is b.k (a.k named)
INSERT INTO four SELECT a.id FROM a WHERE EXISTS (
  SELECT 1 FROM b WHERE b.id = a.id AND EXISTS (
    SELECT 1 FROM c WHERE c.id = b.id AND EXISTS (
      SELECT 1 FROM d WHERE d.y = x AND d.z >= k AND a.x + a.k > 0)));
-- four levels through IN: k is b.k (a.k read by IN), y is d.y, x is c.x (a.x named)
INSERT INTO four_in SELECT a.id FROM a WHERE a.k IN (
  SELECT b.k FROM b WHERE b.id IN (
    SELECT c.id FROM c WHERE c.y = k AND EXISTS (
      SELECT 1 FROM d WHERE d.z = y AND d.id = x AND k >= a.x)));
-- five levels: x is c.x, k is b.k, z is d.z, id is e.id
INSERT INTO five SELECT a.id FROM a WHERE a.x IN (
  SELECT b.x FROM b WHERE b.k <= a.k AND EXISTS (
    SELECT 1 FROM c WHERE c.id >= b.id AND EXISTS (
      SELECT 1 FROM d WHERE d.y = x AND EXISTS (
        SELECT 1 FROM e WHERE e.w > x + k + z AND id <> a.id AND id > a.x))));
END;
