-- A LATERAL derived table that reads the FROM item before it runs over one
-- table, or over tables and subqueries joined with ON, USING or NATURAL;
-- over a comma join (whose conditions its WHERE holds) it is refused,
-- naming LATERAL.
CREATE TABLE c (id INT) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
CREATE TABLE d (id INT, v INT) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
CREATE TABLE o (id INT, v INT) WITH ('connector' = 'blackhole');
INSERT INTO o SELECT c.id, x.v FROM c, LATERAL (SELECT d.v FROM d, d AS e WHERE d.id = e.id AND d.id = c.id) x;
