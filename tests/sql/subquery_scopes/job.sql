-- Bare names resolve as SQL scopes nest: in the query's own FROM first,
-- then in the enclosing query's, whatever the FROM (a join, a subquery)
-- and however deep (a subquery inside a subquery reading the outermost
-- query). Column names differ per table, so that no name needs a
-- qualifier; `ot` is both o's and a's: inside the derived table over a it
-- is a's. The check folds each changelog. Worked by hand:
--   o (oid, ok, ot): (1,10,100) (2,10,200) (3,20,100) (4,NULL,100) (5,30,NULL)
--   a (ak, x, ot): (10,7,1) (10,8,2) (20,9,3)     b (bk, y): (10,70) (20,90) (20,91)
--   l (lk, lv): (10,1) (10,2) (20,3) (30,4) (NULL,1)
--   r (rv, rt): (1,100) (2,200) (3,200) (4,NULL) (NULL,100)
--   a JOIN b ON ak = bk: (ak 10: x 7, y 70) (10: 8, 70) (20: 9, 90) (20: 9, 91).
--   out_join_rows: those of ak = o's ok: 1, 2 (ok 10): (7,70) (8,70);
--     3 (ok 20): (9,90) (9,91); 4 (NULL), 5 (30): none.
--   out_sub_shadow: a's rows (through a subquery) of ak = o's ok and a's
--     ot > 1 (o's ot would keep x 7 too): 1 -> 8, 2 -> 8, 3 -> 9.
--   out_join_agg: COUNT(*), SUM(y) of the joined rows of ak = ok, LEFT
--     JOIN LATERAL: 1, 2 -> (2, 140); 3 -> (2, 181); 4, 5 -> (0, NULL).
--   Two levels down (as in subquery_two_level, qualified there): the rv of
--   rt = o's ot: ot 100 -> {1, NULL}; 200 -> {2, 3}; NULL -> {}.
--   out_exists: an l row of o's ok whose lv is IN those: 1 (lv 1), 2 (lv
--     2); 3: 3 IN {1, NULL} unknown; 4: no l row of a NULL ok; 5: IN {}.
--     out_not_exists: 3, 4, 5.
--   out_in: oid IN the lv with an r row of that rv and o's ot: 1, 2.
--   out_scalar: SUM(lv) of the out_exists rows: 1 -> 1, 2 -> 2, others NULL.
--   out_lateral: COUNT(*), SUM(lv) of them: (1,1,1) (2,1,2) (3,0,NULL)
--     (4,0,NULL) (5,0,NULL).
--   out_lat_rows: lv of lk >= ok with NOT EXISTS an r row of rv = lv and
--     rt = ot: 1 (ot 100 has rv 1): 2, 3, 4; 2 (ot 200: 2, 3): 1, 4;
--     3 (lk >= 20): 3, 4; 4: none; 5 (no rt is NULL): 4.
--   out_nested_scalar: SUM(lv) of ok's l rows above MIN(rv) of ot's r
--     rows (100 -> 1, 200 -> 2, NULL -> NULL): 1 -> 2; 2 -> NULL (none
--     above 2); 3 -> 3; 4 -> NULL; 5 -> NULL (4 > NULL unknown).
CREATE TABLE o (oid INT, ok INT, ot INT) WITH ('connector' = 'filesystem', 'path' = 'o.csv', 'format' = 'csv');
CREATE TABLE a (ak INT, x INT, ot INT) WITH ('connector' = 'filesystem', 'path' = 'a.csv', 'format' = 'csv');
CREATE TABLE b (bk INT, y INT) WITH ('connector' = 'filesystem', 'path' = 'b.csv', 'format' = 'csv');
CREATE TABLE l (lk INT, lv INT) WITH ('connector' = 'filesystem', 'path' = 'l.csv', 'format' = 'csv');
CREATE TABLE r (rv INT, rt INT) WITH ('connector' = 'filesystem', 'path' = 'r.csv', 'format' = 'csv');
CREATE TABLE out_join_rows (id INT, x INT, y INT) WITH ('connector' = 'filesystem', 'path' = 'out_join_rows', 'format' = 'debezium-json');
CREATE TABLE out_sub_shadow (id INT, x INT) WITH ('connector' = 'filesystem', 'path' = 'out_sub_shadow', 'format' = 'debezium-json');
CREATE TABLE out_join_agg (id INT, n BIGINT, s INT) WITH ('connector' = 'filesystem', 'path' = 'out_join_agg', 'format' = 'debezium-json');
CREATE TABLE out_exists (id INT) WITH ('connector' = 'filesystem', 'path' = 'out_exists', 'format' = 'debezium-json');
CREATE TABLE out_not_exists (id INT) WITH ('connector' = 'filesystem', 'path' = 'out_not_exists', 'format' = 'debezium-json');
CREATE TABLE out_in (id INT) WITH ('connector' = 'filesystem', 'path' = 'out_in', 'format' = 'debezium-json');
CREATE TABLE out_scalar (id INT, s INT) WITH ('connector' = 'filesystem', 'path' = 'out_scalar', 'format' = 'debezium-json');
CREATE TABLE out_lateral (id INT, n BIGINT, s INT) WITH ('connector' = 'filesystem', 'path' = 'out_lateral', 'format' = 'debezium-json');
CREATE TABLE out_lat_rows (id INT, v INT) WITH ('connector' = 'filesystem', 'path' = 'out_lat_rows', 'format' = 'debezium-json');
CREATE TABLE out_nested_scalar (id INT, s INT) WITH ('connector' = 'filesystem', 'path' = 'out_nested_scalar', 'format' = 'debezium-json');

EXECUTE STATEMENT SET BEGIN
  INSERT INTO out_join_rows SELECT oid, j.x, j.y FROM o,
    LATERAL (SELECT a.x, b.y FROM a JOIN b ON a.ak = b.bk WHERE a.ak = ok) AS j;
  INSERT INTO out_sub_shadow SELECT oid, s.x FROM o,
    LATERAL (SELECT x FROM (SELECT ak, x, ot FROM a) AS t WHERE ak = ok AND ot > 1) AS s;
  INSERT INTO out_join_agg SELECT oid, g.n, g.s FROM o
    LEFT JOIN LATERAL (SELECT COUNT(*) AS n, SUM(y) AS s FROM a JOIN b ON ak = bk WHERE ak = ok) AS g ON TRUE;
  INSERT INTO out_exists SELECT oid FROM o
    WHERE EXISTS (SELECT 1 FROM l WHERE lk = ok AND lv IN (SELECT rv FROM r WHERE rt = ot));
  INSERT INTO out_not_exists SELECT oid FROM o
    WHERE NOT EXISTS (SELECT 1 FROM l WHERE lk = ok AND lv IN (SELECT rv FROM r WHERE rt = ot));
  INSERT INTO out_in SELECT oid FROM o
    WHERE oid IN (SELECT lv FROM l WHERE EXISTS (SELECT 1 FROM r WHERE rv = lv AND rt = ot));
  INSERT INTO out_scalar SELECT oid,
    (SELECT SUM(lv) FROM l WHERE lk = ok AND lv IN (SELECT rv FROM r WHERE rt = ot)) FROM o;
  INSERT INTO out_lateral SELECT oid, x.n, x.s FROM o, LATERAL (SELECT COUNT(*) AS n, SUM(lv) AS s FROM l
    WHERE lk = ok AND lv IN (SELECT rv FROM r WHERE rt = ot)) AS x;
  INSERT INTO out_lat_rows SELECT oid, x.lv FROM o CROSS JOIN LATERAL (SELECT lv FROM l
    WHERE lk >= ok AND NOT EXISTS (SELECT 1 FROM r WHERE rv = lv AND rt = ot)) AS x;
  INSERT INTO out_nested_scalar SELECT oid,
    (SELECT SUM(lv) FROM l WHERE lk = ok AND lv > (SELECT MIN(rv) FROM r WHERE rt = ot)) FROM o;
END;
