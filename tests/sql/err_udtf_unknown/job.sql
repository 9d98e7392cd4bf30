CREATE FUNCTION split_words AS 'weir_example_split_words' LANGUAGE C USING JAR '@WEIR_DIR@/libweir_udtf_example.so';
CREATE TABLE t (id INT, s STRING) WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
SELECT t.id FROM t, LATERAL TABLE(split_wordz(t.s)) AS w(word);
