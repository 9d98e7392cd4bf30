-- SELECT * in the subquery of IN / EXISTS: the columns are counted once
-- the star is expanded, as in Flink. t: (1,2), (1,NULL), (3,4); s: (1,2), (5,NULL).
CREATE TABLE t (a INT, b INT) WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
CREATE TABLE s (c INT, d INT) WITH ('connector' = 'filesystem', 'path' = 's.csv', 'format' = 'csv');
-- only (1, 2) is a row of s
SELECT a, b FROM t WHERE (a, b) IN (SELECT * FROM s);
-- the two rows of t with a = 1 have a row of s with c = 1
SELECT a FROM t WHERE EXISTS (SELECT * FROM s WHERE s.c = t.a);
