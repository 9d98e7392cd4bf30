-- ROLLUP and CUBE take expressions and composites (a, b), not other
-- grouping constructs (Flink's parser neither).
CREATE TABLE t (a STRING, b INT) WITH ('connector' = 'filesystem', 'path' = 't.json', 'format' = 'json');
SELECT a, b, COUNT(*) FROM t GROUP BY ROLLUP(a, CUBE(b));
