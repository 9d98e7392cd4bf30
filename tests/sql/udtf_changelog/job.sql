-- A table function over an updating input keeps each input row's kind:
-- the group aggregation's -U/+U of a key reach every word emitted for it.
CREATE FUNCTION repeat_n AS 'weir_example_repeat_n' LANGUAGE C USING JAR '@WEIR_DIR@/libweir_udtf_example.so';
CREATE TABLE t (k STRING, s STRING) WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
SELECT g.k, r.i, r.s FROM (SELECT k, COUNT(*) AS c FROM t GROUP BY k) AS g,
  LATERAL TABLE(repeat_n(g.k, CAST(g.c AS INT))) AS r(i, s);
