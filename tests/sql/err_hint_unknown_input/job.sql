-- A join hint must name an input of a join of its SELECT: y is joined only
-- inside the subquery, a query block of its own.
CREATE TABLE x (id INT) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
CREATE TABLE y (id INT) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
CREATE TABLE o (id INT) WITH ('connector' = 'blackhole');
INSERT INTO o
SELECT /*+ SHUFFLE_HASH(x), STATE_TTL('x' = '1d', 'y' = '2d') */ x.id
FROM x JOIN (SELECT y.id FROM y JOIN x AS x2 ON y.id = x2.id) s ON x.id = s.id;
