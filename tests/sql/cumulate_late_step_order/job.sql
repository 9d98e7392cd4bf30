-- FIRST_VALUE / LAST_VALUE over CUMULATE(1 s, 3 s): the period [15 s, 18 s)
-- has no record in its first two steps when the watermark (delay 0) passes
-- them; then 'p' (16.531 s) and 'q' (15.999 s) arrive for those fired
-- steps. They join the period's running accumulator on arrival, before the
-- step still to come (17 s, 'y', which arrived first but is merged when its
-- step fires), so the order of [15 s, 18 s) is p, q, y. (The running
-- accumulator used to start only when a step with records fired, and the
-- two rows went to their own slices, merged in time order: q, p, y.)
CREATE TABLE t (k STRING, ts_ms BIGINT, s STRING, ts AS TO_TIMESTAMP_LTZ(ts_ms, 3), WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'in.json', 'format' = 'json');
SELECT k, window_start, window_end, FIRST_VALUE(s), LAST_VALUE(s), COUNT(*)
FROM TABLE(CUMULATE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '3' SECOND))
GROUP BY k, window_start, window_end;
