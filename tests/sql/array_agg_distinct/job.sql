-- ARRAY_AGG(DISTINCT x): each distinct value once, in the order of its
-- first arrival (Flink's distinct aggregation hands ARRAY_AGG a value when
-- its count goes from 0 to 1 and takes it back when the count returns to
-- 0). Expected rows derived by hand:
-- - HOP windows of 10 s every 5 s: a window combines two 5 s slices, the
--   earlier slice's values first, then the later slice's new ones
--   ([0 s, 10 s) of a: 2, 1, null, 2 | 3, 1, 4 -> [2, 1, null, 3, 4]); NULL is
--   one value unless IGNORE NULLS, and no element gives NULL (b's first window).
-- - A ROWS frame of three rows: the row leaving the frame is taken back
--   first, so a value whose last occurrence leaves goes away and comes back
--   at the end (4th row: frame 1, null, 2 after 2 left -> [1, null, 2]).
CREATE TABLE t (k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
  WITH ('connector' = 'filesystem', 'path' = 't.json', 'format' = 'json');

SELECT k, window_start, ARRAY_AGG(DISTINCT v), ARRAY_AGG(DISTINCT v IGNORE NULLS)
FROM TABLE(HOP(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND))
GROUP BY k, window_start, window_end;

SELECT k, v, ARRAY_AGG(DISTINCT v) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW)
FROM t WHERE k = 'a';
