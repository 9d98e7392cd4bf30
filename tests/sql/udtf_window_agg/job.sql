-- A window aggregation over a table function's rows: each row keeps the
-- time attribute of the input row it came from (through a view, as a
-- window table function's input and as a group window's), and a late input
-- row's words are late too.
CREATE FUNCTION split_words AS 'weir_example_split_words' LANGUAGE C USING JAR '@WEIR_DIR@/libweir_udtf_example.so';
CREATE TABLE t (id INT, s STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
CREATE VIEW words AS SELECT t.id, t.ts, w.word FROM t, LATERAL TABLE(split_words(t.s)) AS w(word);
SELECT 'tvf' AS k, window_start, window_end, word, COUNT(*) AS n, SUM(id) AS ids
FROM TABLE(TUMBLE(TABLE words, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end, word
UNION ALL
SELECT 'group', TUMBLE_START(ts, INTERVAL '10' SECOND), TUMBLE_END(ts, INTERVAL '10' SECOND), word, COUNT(*), SUM(id)
FROM words GROUP BY TUMBLE(ts, INTERVAL '10' SECOND), word;
