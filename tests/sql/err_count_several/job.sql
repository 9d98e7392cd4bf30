-- COUNT of several values is SQL only with DISTINCT: COUNT(a, b) is
-- refused, naming the form that is.
CREATE TABLE t (k STRING, v INT) WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
SELECT k, COUNT(k, v) FROM t GROUP BY k;
