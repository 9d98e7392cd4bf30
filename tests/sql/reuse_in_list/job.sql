-- Sub-plan reuse must tell filters apart by their IN lists: the three
-- SELECTs read one source, but each keeps its own filter (the list of an
-- IN lives beside the expression's arguments, and the reuse digest once
-- left it out, so the second and third SELECT reused the first's filter).
CREATE TABLE t (k STRING, ts_ms BIGINT, v INT, ts AS TO_TIMESTAMP_LTZ(ts_ms, 3), WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'in.json', 'format' = 'json');
SELECT 'in0', TUMBLE_START(ts, INTERVAL '1' SECOND), COUNT(*), SUM(v)
FROM t WHERE v IN (0) GROUP BY TUMBLE(ts, INTERVAL '1' SECOND);
SELECT 'in14_13', TUMBLE_START(ts, INTERVAL '1' SECOND), COUNT(*), SUM(v)
FROM t WHERE v IN (14, 13) GROUP BY TUMBLE(ts, INTERVAL '1' SECOND);
SELECT 'not_in_0_2', TUMBLE_START(ts, INTERVAL '1' SECOND), COUNT(*), SUM(v)
FROM t WHERE v NOT IN (0, 2) GROUP BY TUMBLE(ts, INTERVAL '1' SECOND);
