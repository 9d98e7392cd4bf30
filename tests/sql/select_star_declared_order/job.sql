-- SELECT * lists a table's columns in the order CREATE TABLE declares
-- them, computed and metadata columns among the physical ones, as Flink
-- does (its schema keeps the declared order); a window TVF's * adds
-- window_start, window_end and window_time after them. The event time is
-- a computed column declared second. Expected rows derived by hand from
-- t.json (id, name, s):
--   1 a 2020-01-01 00:00:01 -> [1, 2020-01-01T00:00:01, a, t.json, A, 2020-01-01 00:00:01]
--   2 b 2020-01-01 00:00:04 -> [2, 2020-01-01T00:00:04, b, t.json, B, 2020-01-01 00:00:04]
--   3 c 2020-01-01 00:00:12 -> [3, 2020-01-01T00:00:12, c, t.json, C, 2020-01-01 00:00:12]
-- TUMBLE of 10 s: rows 1 and 2 in [00:00, 00:10) (window_time 00:09.999),
-- row 3 in [00:10, 00:20); the aggregate: 2 rows with MAX(up) B, 1 with C.
-- A column added FIRST or AFTER another by ALTER TABLE takes that place:
-- u (k = id + 100 first, z = name || '!' after id) gives [k, id, z, name].
-- The INSERT's sink declares the same order, so SELECT * matches it by
-- position (with the computed columns last it would put a STRING where
-- the TIMESTAMP goes).
CREATE TABLE t (
  id INT,
  ts AS CAST(s AS TIMESTAMP(3)),
  name STRING,
  fname STRING METADATA FROM 'file.name' VIRTUAL,
  up AS UPPER(name),
  s STRING,
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = 't.json', 'format' = 'json');
CREATE TABLE o (id INT, ts TIMESTAMP(3), name STRING, fname STRING, up STRING, s STRING)
  WITH ('connector' = 'print', 'print-identifier' = 'o');
SELECT * FROM t;
SELECT * FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND));
SELECT window_start, COUNT(*), MAX(up)
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end;
INSERT INTO o SELECT * FROM t;
CREATE TABLE u (id INT, name STRING) WITH ('connector' = 'filesystem', 'path' = 't.json', 'format' = 'json');
ALTER TABLE u ADD (k AS id + 100 FIRST, z AS CONCAT(name, '!') AFTER id);
SELECT * FROM u;
