-- A MULTISET (here COLLECT's result) cannot go to a csv file: refused at
-- plan time, naming the column and its type.
CREATE TABLE t (k STRING, v INT, ms BIGINT) WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
CREATE TABLE o (k STRING, vs MULTISET<INT>) WITH ('connector' = 'filesystem', 'path' = 'o', 'format' = 'csv');
INSERT INTO o SELECT k, COLLECT(v) FROM t GROUP BY k;
