-- A table function's error fails the job with its message and the call's location.
CREATE FUNCTION parse_ints AS 'weir_example_parse_ints' LANGUAGE C USING JAR '@WEIR_DIR@/libweir_udtf_example.so';
CREATE TABLE t (id INT, s STRING) WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
SELECT t.id, n.n FROM t, LATERAL TABLE(parse_ints(t.s)) AS n(n);
