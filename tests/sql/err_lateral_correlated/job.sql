-- A LATERAL derived table that reads a column of the FROM item before it
-- is refused, naming LATERAL.
CREATE TABLE c (id INT) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
CREATE TABLE d (id INT) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
CREATE TABLE o (id INT, n BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO o SELECT c.id, x.n FROM c, LATERAL (SELECT COUNT(*) AS n FROM d WHERE d.id = c.id) x;
