-- DISTINCT in an aggregate weir cannot compute yet is refused, naming it.
CREATE TABLE t (k STRING, v INT) WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
SELECT k, SUM(DISTINCT v) FROM t GROUP BY k;
