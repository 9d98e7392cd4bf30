-- A table function alone in FROM reads no table: its arguments are
-- constants, and a column is unknown there (with or without LATERAL).
CREATE FUNCTION split_words AS 'weir_example_split_words' LANGUAGE C USING JAR '@WEIR_DIR@/libweir_udtf_example.so';
CREATE TABLE t (id INT, s STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
SELECT * FROM LATERAL TABLE(split_words(s)) AS w(word);
