-- A table function alone in FROM, with constant arguments: a bounded table
-- whose rows are inserted once (Flink runs it as a one-shot source), read
-- with and without LATERAL, with `*`, with its own column names or an alias
-- list, aggregated, and joined with a table on either side (a regular join,
-- so LEFT JOIN ... ON a condition too). The check folds each changelog.
-- Worked by hand (split_words: the words; split_words_pos: word, its
-- 1-based position, its length; repeat_n(s, n): (i, s) for i = 1..n, called
-- for NULL arguments too; t: (1, bb) (2, a) (3, zz) (4, a) (5, NULL)):
--   out_star: TABLE(split_words_pos('hello big world')) AS x, x.*:
--     (hello, 1, 5) (big, 2, 3) (world, 3, 5).
--   out_lateral: LATERAL TABLE(split_words('a b c')) AS w(v): a, b, c;
--     UPPER over TABLE(split_words(CONCAT('x', ' ', 'y'))): X, Y.
--   out_repeat: repeat_n('ab', 3): (1, ab) (2, ab) (3, ab); repeat_n(NULL,
--     2): (1, NULL) (2, NULL); split_words(CAST(NULL AS STRING)): no row
--     (a NULL argument skips a function that returns NULL on NULL).
--   out_agg: COUNT(*), SUM(len), MAX(word) over split_words_pos('a bb ccc
--     bb'): 4, 8, ccc; grouped by word: a 1, bb 2, ccc 1.
--   out_join: the words of 'a bb c' JOIN t ON t.s = word: (a, 2) (a, 4)
--     (bb, 1); c meets no row.
--   out_left: t LEFT JOIN TABLE(split_words('a bb c')) ON s = word: 1 bb,
--     2 a, 3 NULL, 4 a, 5 NULL (NULL = 'a' is unknown).
--   out_where: t's ids whose s is one of the words of 'zz a' (IN over the
--     function's rows): 2, 3, 4.
CREATE FUNCTION split_words AS 'weir_example_split_words' LANGUAGE C USING JAR '@WEIR_DIR@/libweir_udtf_example.so';
CREATE TEMPORARY SYSTEM FUNCTION split_words_pos AS 'weir_example_split_words_pos' LANGUAGE C
  USING JAR '@WEIR_DIR@/libweir_udtf_example.so';
CREATE FUNCTION repeat_n AS 'weir_example_repeat_n' LANGUAGE C USING JAR '@WEIR_DIR@/libweir_udtf_example.so';
CREATE TABLE t (id INT, s STRING) WITH ('connector' = 'filesystem', 'path' = 't.json', 'format' = 'json');
CREATE TABLE out_star (word STRING, pos INT, len INT) WITH ('connector' = 'filesystem', 'path' = 'out_star', 'format' = 'debezium-json');
CREATE TABLE out_lateral (v STRING) WITH ('connector' = 'filesystem', 'path' = 'out_lateral', 'format' = 'debezium-json');
CREATE TABLE out_repeat (i INT, s STRING) WITH ('connector' = 'filesystem', 'path' = 'out_repeat', 'format' = 'debezium-json');
CREATE TABLE out_agg (k STRING, n BIGINT, l INT) WITH ('connector' = 'filesystem', 'path' = 'out_agg', 'format' = 'debezium-json');
CREATE TABLE out_join (word STRING, id INT) WITH ('connector' = 'filesystem', 'path' = 'out_join', 'format' = 'debezium-json');
CREATE TABLE out_left (id INT, word STRING) WITH ('connector' = 'filesystem', 'path' = 'out_left', 'format' = 'debezium-json');
CREATE TABLE out_where (id INT) WITH ('connector' = 'filesystem', 'path' = 'out_where', 'format' = 'debezium-json');

EXECUTE STATEMENT SET BEGIN
  INSERT INTO out_star SELECT x.* FROM TABLE(split_words_pos('hello big world')) AS x;
  INSERT INTO out_lateral SELECT v FROM LATERAL TABLE(split_words('a b c')) AS w(v);
  INSERT INTO out_lateral SELECT UPPER(word) FROM TABLE(split_words(CONCAT('x', ' ', 'y')));
  INSERT INTO out_repeat SELECT * FROM TABLE(repeat_n('ab', 3));
  INSERT INTO out_repeat SELECT i, s FROM TABLE(repeat_n(CAST(NULL AS STRING), 2)) AS r;
  INSERT INTO out_repeat SELECT 0, word FROM TABLE(split_words(CAST(NULL AS STRING)));
  INSERT INTO out_agg SELECT MAX(word), COUNT(*), SUM(len) FROM TABLE(split_words_pos('a bb ccc bb'));
  INSERT INTO out_agg SELECT word, COUNT(*), CAST(NULL AS INT) FROM TABLE(split_words_pos('a bb ccc bb')) GROUP BY word;
  INSERT INTO out_join SELECT w.word, t.id FROM TABLE(split_words('a bb c')) AS w(word) JOIN t ON t.s = w.word;
  INSERT INTO out_left SELECT t.id, w.word FROM t LEFT JOIN TABLE(split_words('a bb c')) AS w(word) ON t.s = w.word;
  INSERT INTO out_where SELECT id FROM t WHERE s IN (SELECT word FROM TABLE(split_words('zz a')));
END;
