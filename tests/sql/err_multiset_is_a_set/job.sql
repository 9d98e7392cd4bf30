-- IS A SET, a MULTISET operator Flink's streaming SQL does not run: refused by name.
CREATE TABLE t (k STRING, v INT) WITH ('connector' = 'filesystem', 'path' = 't.json', 'format' = 'json');
SELECT k, COLLECT(v) IS NOT A SET FROM t GROUP BY k;
