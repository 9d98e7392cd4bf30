-- Queries > Joins > Table Function: LATERAL TABLE of a user-defined table function
-- oracle: SELECT order_id, product FROM orders
CREATE FUNCTION split_words AS 'weir_example_split_words' LANGUAGE C USING JAR '@WEIR_DIR@/libweir_udtf_example.so';
SELECT o.order_id, t.word FROM orders AS o, LATERAL TABLE(split_words(o.product)) AS t(word);
