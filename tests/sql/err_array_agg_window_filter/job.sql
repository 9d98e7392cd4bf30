-- In a window aggregation FILTER is computed by giving the aggregate NULL
-- for the rows the condition drops; ARRAY_AGG without IGNORE NULLS keeps
-- NULL elements, so it would collect them: refused where the FILTER stands
-- (with IGNORE NULLS, or in a GROUP BY without a window, it runs).
CREATE TABLE t (k STRING, v INT, s STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
  WITH ('connector' = 'filesystem', 'path' = 't.json', 'format' = 'json');

SELECT k, window_start, ARRAY_AGG(v) FILTER (WHERE v > 1)
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY k, window_start, window_end;
