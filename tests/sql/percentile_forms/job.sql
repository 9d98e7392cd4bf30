-- PERCENTILE's Flink 2 forms: a frequency (the value counts that many
-- times; a NULL value or frequency, or a frequency of 0, adds nothing) and
-- an ARRAY of percentages (an ARRAY<DOUBLE>, one element per percentage).
-- Expected rows derived by hand with pos = p * (n - 1) over the sorted
-- values, interpolated between the two nearest ranks:
-- a: 0 once, 10 twice -> 0, 10, 10: p 0.3 -> pos 0.6 -> 6.0 (Flink's
--    documented example); without the frequency 0, 10: 0.25 -> 2.5, 0.75 -> 7.5.
-- b: no value has a frequency -> NULL; 5, 7: 0.25 -> 5.5, 0.75 -> 6.5.
-- c: 1, 1, 1, 4: 0.3 -> pos 0.9 -> 1.0; 1, 4: 0.25 -> 1.75, 0.75 -> 3.25.
-- DISTINCT: the distinct values, 0.5 and 0.
CREATE TABLE t (k STRING, v INT, f BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
  WITH ('connector' = 'filesystem', 'path' = 't.json', 'format' = 'json');

SELECT k, PERCENTILE(v, 0.3, f), PERCENTILE(v, ARRAY[0.25, 0.75]), PERCENTILE(v, ARRAY[0.3], f),
       PERCENTILE(DISTINCT v, ARRAY[0.5, 0])
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY k, window_start, window_end;
