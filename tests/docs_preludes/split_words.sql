-- The table functions of examples/udf/weir_udtf_example.c, registered as
-- docs/functions.md shows ('/opt/udf/' is the build folder in the test).
CREATE FUNCTION split_words AS 'weir_example_split_words' LANGUAGE C
  USING JAR '/opt/udf/libweir_udtf_example.so';
CREATE FUNCTION split_words_pos AS 'weir_example_split_words_pos' LANGUAGE C
  USING JAR '/opt/udf/libweir_udtf_example.so';
