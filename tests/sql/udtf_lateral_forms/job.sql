-- Table functions in C joined to their input rows (Flink's Queries > Joins >
-- Table Function): the comma form, CROSS JOIN, JOIN ... ON TRUE, LEFT JOIN
-- ... ON TRUE (an input row without output rows kept once, NULL-padded), an
-- inner JOIN ... ON condition, a WHERE over the function's columns, and the
-- function's own column names without an alias list.
CREATE FUNCTION split_words AS 'weir_example_split_words' LANGUAGE C USING JAR '@WEIR_DIR@/libweir_udtf_example.so';
CREATE TEMPORARY SYSTEM FUNCTION split_words_pos AS 'weir_example_split_words_pos' LANGUAGE C
  USING JAR '@WEIR_DIR@/libweir_udtf_example.so';
CREATE TABLE t (id INT, s STRING) WITH ('connector' = 'filesystem', 'path' = 't.json', 'format' = 'json');
SELECT 'comma' AS form, t.id, w.word, CAST(NULL AS INT) AS pos, CAST(NULL AS INT) AS len
  FROM t, LATERAL TABLE(split_words(t.s)) AS w(word)
UNION ALL
SELECT 'cross', t.id, UPPER(w.word), CAST(NULL AS INT), CAST(NULL AS INT) FROM t CROSS JOIN LATERAL TABLE(split_words(t.s)) AS w(word)
UNION ALL
SELECT 'on_true', id, word, CAST(NULL AS INT), CAST(NULL AS INT) FROM t JOIN LATERAL TABLE(split_words(s)) AS w(word) ON TRUE
UNION ALL
SELECT 'left', t.id, x.w, x.p, x.l FROM t LEFT JOIN LATERAL TABLE(split_words_pos(s)) AS x(w, p, l) ON TRUE
UNION ALL
SELECT 'where', id, word, pos, len FROM t, LATERAL TABLE(split_words_pos(s)) WHERE pos > 1 AND len < 5
UNION ALL
SELECT 'on_cond', t.id, x.word, x.pos, CAST(NULL AS INT) FROM t JOIN LATERAL TABLE(split_words_pos(t.s)) AS x ON x.pos = t.id - 2;
