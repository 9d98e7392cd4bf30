-- A new row's place in a Top-N list of up to 8 rows: values 1 - 9 with many
-- ties enter at the list's end, its head and every place between. An equal
-- row ranks after the rows already kept (ROW_NUMBER); ms tells equal rows
-- apart. The window Top-N ranks whole windows the same way.
CREATE TABLE t (k STRING, v INT, ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ms, 3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
SELECT 'desc', * FROM (SELECT k, v, ms, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC) AS rn FROM t) WHERE rn <= 8;
SELECT 'asc', * FROM (SELECT k, v, ms, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v) AS rn FROM t) WHERE rn <= 8;
SELECT 'two', k, v, ms FROM (SELECT k, v, ms, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC, ms) AS rn FROM t) WHERE rn <= 5;
SELECT 'window', * FROM (SELECT window_start, k, v, ms, ROW_NUMBER() OVER (PARTITION BY window_start, window_end, k ORDER BY v DESC) AS rn
  FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND))) WHERE rn <= 4;
SELECT 'rank', * FROM (SELECT window_start, k, v, ms, RANK() OVER (PARTITION BY window_start, window_end, k ORDER BY v DESC) AS rn
  FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND))) WHERE rn <= 3;
