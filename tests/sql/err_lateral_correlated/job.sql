-- A LATERAL derived table that reads a column of the FROM item before it
-- runs as a join; with ORDER BY ... LIMIT (a Top-N per row before it,
-- which Flink's streaming planner does not decorrelate either) it is
-- refused, naming the construct.
CREATE TABLE c (id INT) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
CREATE TABLE d (id INT, v INT) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
CREATE TABLE o (id INT, v INT) WITH ('connector' = 'blackhole');
INSERT INTO o SELECT c.id, x.v FROM c, LATERAL (SELECT v FROM d WHERE d.id = c.id ORDER BY v LIMIT 1) x;
