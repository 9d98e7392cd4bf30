-- A Top-N over a Top-N: the lowest two of each key's top three. The inner
-- Top-N's changelog (a row entering its top three is +I, the one pushed
-- out -D) is an updating input, ranked by the retractable Top-N. Both are
-- keyed by k, so each key's rows keep their order at any parallelism.
-- Inner changelog for a: +I 5, +I 3, +I 8, +I 6, -D 3, +I 9, -D 5; b: +I 2, +I 4.
CREATE TABLE t (k STRING, v INT) WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
CREATE VIEW top3 AS SELECT k, v FROM (SELECT k, v, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC) AS rn FROM t)
WHERE rn <= 3;
SELECT 'ranked', * FROM (SELECT k, v, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v) AS rn FROM top3) WHERE rn <= 2;
SELECT 'low2', k, v FROM (SELECT k, v, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v) AS rn FROM top3) WHERE rn <= 2;
