-- ARRAY_AGG in a window aggregation, over an updating input and in OVER;
-- JSON_ARRAYAGG in a window aggregation and over an updating input.
-- Expected rows derived by hand from Flink's rules: the elements in arrival
-- order, NULL values kept unless IGNORE NULLS, NULL when there is no
-- element (the second window of b with IGNORE NULLS); a retraction removes
-- the element (the group of count 1 empties when a's count becomes 2); a
-- ROWS frame of two rows holds the previous and the current value.
CREATE TABLE t (k STRING, v INT, s STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
  WITH ('connector' = 'filesystem', 'path' = 't.json', 'format' = 'json');

SELECT k, window_start, ARRAY_AGG(v), ARRAY_AGG(v IGNORE NULLS), ARRAY_AGG(s RESPECT NULLS)
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY k, window_start, window_end;

SELECT c, ARRAY_AGG(k) FROM (SELECT k, COUNT(*) AS c FROM t WHERE k = 'a' GROUP BY k) GROUP BY c;

SELECT k, v, ARRAY_AGG(v) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM t;

-- JSON_ARRAYAGG: the values as a JSON array in arrival order, NULLs left
-- out (ABSENT ON NULL, the default; `[]` when nothing is left) or written
-- as null (NULL ON NULL); a JSON constructor's value goes in as JSON.
SELECT k, window_start, JSON_ARRAYAGG(v), JSON_ARRAYAGG(s NULL ON NULL), JSON_ARRAYAGG(JSON_OBJECT('v' VALUE v))
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY k, window_start, window_end;

SELECT c, JSON_ARRAYAGG(k) FROM (SELECT k, COUNT(*) AS c FROM t WHERE k = 'a' GROUP BY k) GROUP BY c;
