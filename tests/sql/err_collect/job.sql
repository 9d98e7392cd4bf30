-- COLLECT needs a MULTISET type, which weir does not have: refused, naming it.
CREATE TABLE t (k STRING, v INT, ms BIGINT) WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
SELECT k, COLLECT(v) FROM t GROUP BY k;
