-- JSON_OBJECTAGG over rows with a NULL key that its FILTER (or a WHERE)
-- drops: the dropped rows never reach the aggregate, so no row fails.
-- In a tumbling window (window [0, 10 s): a gets x and y, b nothing, so
-- b's object is {}; window [10 s, 20 s): b gets z) and in an updating
-- GROUP BY.
CREATE TABLE t (g STRING, k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
  WITH ('connector' = 'filesystem', 'path' = 't.json', 'format' = 'json');

SELECT g, window_start, JSON_OBJECTAGG(KEY k VALUE v) FILTER (WHERE k IS NOT NULL)
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY g, window_start, window_end;

SELECT g, JSON_OBJECTAGG(KEY k VALUE v) FILTER (WHERE k IS NOT NULL) FROM t GROUP BY g;
