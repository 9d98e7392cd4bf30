-- A LATERAL derived table of aggregates without GROUP BY reads the FROM
-- item before it in its WHERE and around its aggregates (COUNT(*) + c.id);
-- inside an aggregate's arguments (computed over the derived table's own
-- rows) it is refused, naming the rule.
CREATE TABLE c (id INT, rate INT) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
CREATE TABLE d (id INT, v INT) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
CREATE TABLE o (id INT, s INT) WITH ('connector' = 'blackhole');
INSERT INTO o SELECT c.id, x.s FROM c, LATERAL (SELECT SUM(d.v * c.rate) AS s FROM d WHERE d.id = c.id) x;
