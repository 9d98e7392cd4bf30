-- Queries > Joins > Table Function: a table function alone in FROM, constant arguments
-- oracle: VALUES ('a'), ('bb'), ('c')
CREATE FUNCTION split_words AS 'weir_example_split_words' LANGUAGE C USING JAR '@WEIR_DIR@/libweir_udtf_example.so';
SELECT w FROM LATERAL TABLE(split_words('a bb c')) AS t(w);
