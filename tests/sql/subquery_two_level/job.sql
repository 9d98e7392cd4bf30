-- Subqueries inside subqueries that read the outermost query's columns,
-- and a LATERAL derived table's aggregates over the outer row's columns,
-- decorrelated as Flink's planner (Calcite) does: over the distinct values
-- of the outer columns any level reads, joined back IS NOT DISTINCT FROM.
-- The check folds each changelog. Worked by hand:
--   o (id, k, t): (1,10,100) (2,10,200) (3,20,100) (4,NULL,100) (5,30,NULL)
--   l (k, v): (10,1) (10,2) (20,3) (30,4) (NULL,1)
--   r (v, t): (1,100) (2,200) (3,200) (4,NULL) (NULL,100)
--   The r.v of r.t = o.t: t 100 -> {1, NULL}; t 200 -> {2, 3}; t NULL -> {}.
--   out_exists: an l row of o's k whose v is IN those: 1 (v 1 of k 10);
--     2 (v 2); 3: v 3 IN {1, NULL} is unknown; 4: a NULL k meets no l
--     row; 5: IN {} is FALSE. -> 1, 2. out_not_exists: 3, 4, 5.
--   out_in: id IN the l.v that have an r row of that v and o's t: t 100
--     -> {1, 1}, t 200 -> {2, 3}, t NULL -> {}: 1 (1 in {1}), 2 (2 in
--     {2, 3}). out_not_in (no NULL v there): 3, 4, 5.
--   out_scalar: SUM(l.v) of those l rows (as out_exists): 1 -> 1, 2 -> 2,
--     3, 4, 5 -> NULL (no rows).
--   out_lateral: COUNT(*) and SUM(l.v) of the same rows, one row per o
--     row: (1,1,1) (2,1,2) (3,0,NULL) (4,0,NULL) (5,0,NULL).
--   Aggregates whose arguments read the outer row (per o row, over the l
--     rows of its k): out_lat_outer: SUM(l.v * o.t), MAX(l.v + o.id): 1:
--     1*100 + 2*100 = 300, max(2, 3) = 3; 2: 200 + 400 = 600, 4; 3: 300,
--     6; 4: no rows: NULL, NULL; 5: v 4 times a NULL t: SUM NULL, 4+5 = 9.
--   out_lat_left: LEFT JOIN LATERAL, l.k > o.k (not an equality):
--     COUNT(o.t) (the rows where o's t is not NULL) and SUM(l.v) * o.id:
--     1: k 20, 30: 2, (3+4)*1 = 7; 2: 2, 14; 3: k 30: 1, 12; 4: none
--     (NULL k): 0, NULL; 5: none above 30: 0, NULL.
--   out_scalar_outer: (SELECT SUM(l.v * o.t) ... WHERE l.k = o.k): 1 300,
--     2 600, 3 300, 4 NULL, 5 NULL.
--   out_lat_rows: the l rows (rows, not aggregated) with l.k >= o.k and NOT
--     EXISTS an r row of their v and o's t: 1 (t 100 has v 1): v 2, 3, 4;
--     2 (t 200 has v 2, 3): 1, 4; 3 (k >= 20): 3, 4; 4: none; 5 (no r row
--     has a NULL t): 4.
--   out_nested_scalar: SUM(l.v) of o's k's l rows above MIN(r.v) of o's t
--     (a scalar subquery inside a scalar subquery): t 100 -> 1, t 200 ->
--     2, t NULL -> NULL: 1: v 2 -> 2; 2: none above 2 -> NULL; 3: 3; 4:
--     no rows; 5: v 4 > NULL is unknown -> NULL.
CREATE TABLE o (id INT, k INT, t INT) WITH ('connector' = 'filesystem', 'path' = 'o.csv', 'format' = 'csv');
CREATE TABLE l (k INT, v INT) WITH ('connector' = 'filesystem', 'path' = 'l.csv', 'format' = 'csv');
CREATE TABLE r (v INT, t INT) WITH ('connector' = 'filesystem', 'path' = 'r.csv', 'format' = 'csv');
CREATE TABLE out_exists (id INT) WITH ('connector' = 'filesystem', 'path' = 'out_exists', 'format' = 'debezium-json');
CREATE TABLE out_not_exists (id INT) WITH ('connector' = 'filesystem', 'path' = 'out_not_exists', 'format' = 'debezium-json');
CREATE TABLE out_in (id INT) WITH ('connector' = 'filesystem', 'path' = 'out_in', 'format' = 'debezium-json');
CREATE TABLE out_not_in (id INT) WITH ('connector' = 'filesystem', 'path' = 'out_not_in', 'format' = 'debezium-json');
CREATE TABLE out_scalar (id INT, s INT) WITH ('connector' = 'filesystem', 'path' = 'out_scalar', 'format' = 'debezium-json');
CREATE TABLE out_lateral (id INT, n BIGINT, s INT) WITH ('connector' = 'filesystem', 'path' = 'out_lateral', 'format' = 'debezium-json');
CREATE TABLE out_lat_outer (id INT, s INT, m INT) WITH ('connector' = 'filesystem', 'path' = 'out_lat_outer', 'format' = 'debezium-json');
CREATE TABLE out_lat_left (id INT, c BIGINT, w INT) WITH ('connector' = 'filesystem', 'path' = 'out_lat_left', 'format' = 'debezium-json');
CREATE TABLE out_scalar_outer (id INT, s INT) WITH ('connector' = 'filesystem', 'path' = 'out_scalar_outer', 'format' = 'debezium-json');
CREATE TABLE out_nested_scalar (id INT, s INT) WITH ('connector' = 'filesystem', 'path' = 'out_nested_scalar', 'format' = 'debezium-json');
CREATE TABLE out_lat_rows (id INT, v INT) WITH ('connector' = 'filesystem', 'path' = 'out_lat_rows', 'format' = 'debezium-json');

EXECUTE STATEMENT SET BEGIN
  INSERT INTO out_exists SELECT id FROM o
    WHERE EXISTS (SELECT 1 FROM l WHERE l.k = o.k AND l.v IN (SELECT r.v FROM r WHERE r.t = o.t));
  INSERT INTO out_not_exists SELECT id FROM o
    WHERE NOT EXISTS (SELECT 1 FROM l WHERE l.k = o.k AND l.v IN (SELECT r.v FROM r WHERE r.t = o.t));
  INSERT INTO out_in SELECT id FROM o
    WHERE o.id IN (SELECT l.v FROM l WHERE EXISTS (SELECT 1 FROM r WHERE r.v = l.v AND r.t = o.t));
  INSERT INTO out_not_in SELECT id FROM o
    WHERE o.id NOT IN (SELECT l.v FROM l WHERE EXISTS (SELECT 1 FROM r WHERE r.v = l.v AND r.t = o.t));
  INSERT INTO out_scalar SELECT id,
    (SELECT SUM(l.v) FROM l WHERE l.k = o.k AND l.v IN (SELECT r.v FROM r WHERE r.t = o.t)) FROM o;
  INSERT INTO out_lateral SELECT o.id, x.n, x.s FROM o, LATERAL (SELECT COUNT(*) AS n, SUM(l.v) AS s FROM l
    WHERE l.k = o.k AND l.v IN (SELECT r.v FROM r WHERE r.t = o.t)) AS x;
  INSERT INTO out_lat_outer SELECT o.id, x.s, x.m FROM o,
    LATERAL (SELECT SUM(l.v * o.t) AS s, MAX(l.v + o.id) AS m FROM l WHERE l.k = o.k) AS x;
  INSERT INTO out_lat_left SELECT o.id, x.c, x.w FROM o
    LEFT JOIN LATERAL (SELECT COUNT(o.t) AS c, SUM(l.v) * o.id AS w FROM l WHERE l.k > o.k) AS x ON TRUE;
  INSERT INTO out_scalar_outer SELECT id, (SELECT SUM(l.v * o.t) FROM l WHERE l.k = o.k) FROM o;
  INSERT INTO out_lat_rows SELECT o.id, x.v FROM o CROSS JOIN LATERAL (SELECT l.v FROM l
    WHERE l.k >= o.k AND NOT EXISTS (SELECT 1 FROM r WHERE r.v = l.v AND r.t = o.t)) AS x;
  INSERT INTO out_nested_scalar SELECT id,
    (SELECT SUM(l.v) FROM l WHERE l.k = o.k AND l.v > (SELECT MIN(r.v) FROM r WHERE r.t = o.t)) FROM o;
END;
