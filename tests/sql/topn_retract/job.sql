-- Top-N over an updating input (a GROUP BY's SUM per item, the top 2 items
-- per category), Flink's retractable Top-N: a -U/-D takes the row out and
-- the row below the bound climbs back. With the rank number every rank whose
-- row changed is -U/+U; without it the row that enters is +I and the one
-- that leaves -D; with an offset (ranks 2..3, no rank number) the ranks are
-- updated as with the number. The expected changelog is worked by hand from
-- the aggregation's changelog (one row at a time):
--   +I(a,x,5) +I(a,y,3) +I(a,z,4) -U(a,y,3) +U(a,y,6) -U(a,x,5) +U(a,x,1)
--   +I(b,p,1) +I(a,w,2) -U(a,z,4) +U(a,z,1)
-- It is checked at parallelism 1 only: with more, the order in which the
-- aggregation's subtasks deliver different items of one category varies.
CREATE TABLE t (cat STRING, item STRING, v INT) WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
CREATE VIEW sums AS SELECT cat, item, SUM(v) AS s FROM t GROUP BY cat, item;
SELECT 'ranked', * FROM (SELECT cat, item, s, ROW_NUMBER() OVER (PARTITION BY cat ORDER BY s DESC) AS rn FROM sums)
WHERE rn <= 2;
SELECT 'top2', cat, item, s FROM (SELECT cat, item, s, ROW_NUMBER() OVER (PARTITION BY cat ORDER BY s DESC) AS rn
  FROM sums) WHERE rn <= 2;
SELECT 'mid', cat, item, s FROM (SELECT cat, item, s, ROW_NUMBER() OVER (PARTITION BY cat ORDER BY s DESC) AS rn
  FROM sums) WHERE rn BETWEEN 2 AND 3;
-- ROW_NUMBER() beside the GROUP BY ranks the groups (after HAVING), ordered
-- here by the aggregate itself: the same changelog as 'ranked'; with HAVING
-- a group enters when it passes (a,y at its second row; a,x at its second
-- row outranks it by MAX(v), 5 > 3).
SELECT 'same', * FROM (SELECT cat, item, SUM(v) AS s, ROW_NUMBER() OVER (PARTITION BY cat ORDER BY SUM(v) DESC) AS rn
  FROM t GROUP BY cat, item) WHERE rn <= 2;
SELECT 'having', cat, item, n FROM (SELECT cat, item, COUNT(*) AS n,
  ROW_NUMBER() OVER (PARTITION BY cat ORDER BY MAX(v) DESC) AS rn FROM t GROUP BY cat, item HAVING COUNT(*) > 1)
WHERE rn <= 1;
