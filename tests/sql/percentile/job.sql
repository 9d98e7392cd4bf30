-- PERCENTILE(x, p) (Flink 2.0): the exact percentile with linear
-- interpolation, as Flink, Spark and Hive compute it. Expected rows derived
-- by hand: with the n values sorted, pos = p * (n - 1) and the result is
-- (ceil(pos) - pos) * v[floor(pos)] + (pos - floor(pos)) * v[ceil(pos)].
-- Window [0 s, 10 s) of a: 0, 10, 10 -> p 0.3: pos 0.6 -> 0.4 * 0 + 0.6 * 10
-- = 6.0 (Flink's own example); DISTINCT 0, 10 -> pos 0.3 -> 3.0; the median
-- of d (1.5, -3.0; NULL skipped) is -0.75. Window [10 s, 20 s) of a: 1, 2,
-- 4, 8 -> p 0.3: pos 0.9 -> 0.1 * 1 + 0.9 * 2 = 1.9; p 0 -> 1.0; p 1 ->
-- 8.0; median of d 4, 5, 6, 7 -> 5.5. b's first window has only NULLs:
-- NULL; its second one value, 7, at every percentage.
CREATE TABLE t (k STRING, v INT, d DOUBLE, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
  WITH ('connector' = 'filesystem', 'path' = 't.json', 'format' = 'json');

SELECT k, window_start, PERCENTILE(v, 0.3), PERCENTILE(DISTINCT v, 0.3), PERCENTILE(v, 0), PERCENTILE(v, 1),
       PERCENTILE(d, 0.5)
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY k, window_start, window_end;

-- HOP windows of 10 s every 5 s (slices merged), over all keys, median:
-- [-5 s, 5 s) and [0 s, 10 s): 0, 10, 10 -> 10.0; [5 s, 15 s): 1, 2, 4, 7
-- -> 3.0; [10 s, 20 s): 1, 2, 4, 7, 8 -> 4.0; [15 s, 25 s): 8 -> 8.0.
SELECT window_start, PERCENTILE(v, 0.5)
FROM TABLE(HOP(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND))
GROUP BY window_start, window_end;
