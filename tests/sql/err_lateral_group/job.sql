-- GROUP BY in a LATERAL derived table that reads the FROM item before it
-- is refused, naming GROUP BY (aggregates without GROUP BY run: one row
-- per row before it).
CREATE TABLE c (id INT) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
CREATE TABLE d (id INT, v INT) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
CREATE TABLE o (id INT, n BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO o SELECT c.id, x.n FROM c, LATERAL (SELECT v, COUNT(*) AS n FROM d WHERE d.id = c.id GROUP BY v) x;
