-- A grouped LATERAL derived table (GROUP BY or DISTINCT) reads the FROM
-- item before it in its WHERE only (correlated by equalities); in its
-- SELECT list, GROUP BY or HAVING it is refused, naming the rule.
CREATE TABLE c (id INT, lim BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
CREATE TABLE d (id INT, v INT) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
CREATE TABLE o (id INT, v INT, n BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO o SELECT c.id, x.v, x.n FROM c,
  LATERAL (SELECT v, COUNT(*) AS n FROM d WHERE d.id = c.id GROUP BY v HAVING COUNT(*) > c.lim) x;
