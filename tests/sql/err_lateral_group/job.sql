-- GROUP BY in a LATERAL derived table that reads the FROM item before it
-- runs when its WHERE correlates it by equalities (grouped by their inner
-- side too); correlated by another condition it is refused, naming it.
CREATE TABLE c (id INT) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
CREATE TABLE d (id INT, v INT) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
CREATE TABLE o (id INT, n BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO o SELECT c.id, x.n FROM c, LATERAL (SELECT v, COUNT(*) AS n FROM d WHERE d.id > c.id GROUP BY v) x;
