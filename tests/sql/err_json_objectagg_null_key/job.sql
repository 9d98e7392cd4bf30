-- JSON_OBJECTAGG over a row whose key is NULL (no FILTER drops it): the
-- job fails naming the function, as Flink fails on a NULL key.
CREATE TABLE t (g STRING, k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
  WITH ('connector' = 'filesystem', 'path' = 't.json', 'format' = 'json');
SELECT g, JSON_OBJECTAGG(KEY k VALUE v) FROM t GROUP BY g;
