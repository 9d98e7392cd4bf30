-- MAP equality is by entries, whatever their order (as Flink's MapData):
-- maps listing the same entries in another order are one GROUP BY key,
-- one DISTINCT row, and join each other; a key given twice in JSON keeps
-- its last value (row 4 is {a=1, b=2}); a map prints with its keys in
-- order.
CREATE TABLE t (id BIGINT, m MAP<STRING, INT>)
WITH ('connector' = 'filesystem', 'path' = 't.json', 'format' = 'json');

SELECT m, COUNT(*) AS n, SUM(id) AS ids FROM t GROUP BY m;

SELECT DISTINCT m FROM t;

SELECT id, m = MAP['b', 2, 'a', 1] AS eq, m IS NOT DISTINCT FROM MAP['a', 1, 'b', 2] AS same,
       MAP['b', 1, 'a', 2, 'b', 3] AS built
FROM t;

SELECT a.id, b.id FROM t AS a JOIN t AS b ON a.m = b.m AND a.id < b.id;
