-- COLLECT(x): the MULTISET of x's non-NULL values with their counts ({}
-- when there are none), as Flink's COLLECT. In an updating GROUP BY (a
-- retraction takes one occurrence back: the outer COLLECT over the inner
-- count's changelog), in a TUMBLE window (with DISTINCT: every count 1),
-- in a bounded OVER frame, and written to a JSON sink as an object of
-- element -> count. A MULTISET<STRING> column read from JSON objects of
-- element -> count: equal multisets (whatever their order in the input)
-- group and join together; CARDINALITY counts every occurrence.
CREATE TABLE t (k STRING, v STRING, n INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
  WITH ('connector' = 'filesystem', 'path' = 't.json', 'format' = 'json');
CREATE TABLE m (id INT, tags MULTISET<STRING>)
  WITH ('connector' = 'filesystem', 'path' = 'm.json', 'format' = 'json');
CREATE TABLE o (k STRING, vs MULTISET<STRING>, c INT)
  WITH ('connector' = 'filesystem', 'path' = 'o', 'format' = 'json');

SELECT k, COLLECT(v), COLLECT(n), CARDINALITY(COLLECT(v)) FROM t GROUP BY k;

SELECT COLLECT(c) FROM (SELECT k, COUNT(*) AS c FROM t WHERE k = 'a' GROUP BY k);

SELECT k, window_start, COLLECT(v) AS vs, COLLECT(DISTINCT n)
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY k, window_start, window_end;

SELECT k, v, COLLECT(v) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM t;

SELECT tags, COUNT(*), CARDINALITY(tags) FROM m GROUP BY tags;

SELECT a.id, b.id, a.tags = b.tags FROM m AS a JOIN m AS b ON a.tags = b.tags AND a.id < b.id;

INSERT INTO o
SELECT k, COLLECT(v), CARDINALITY(COLLECT(v))
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY k, window_start, window_end;
