-- A bare weir.late-records.table name is a table of the current database
-- of the statement that runs the window aggregation, also when the
-- aggregation is the query of a view written in another database (there
-- the view's own names resolve). (b, 130, 3000) arrives at W = 4000 and
-- (a, 500, 8500) at W = 9000: both after their 1 s windows ended.
CREATE DATABASE db1;
CREATE TABLE late_rows (k STRING, v BIGINT, `watermark` TIMESTAMP(3))
  WITH ('connector' = 'print', 'print-identifier' = 'late');
CREATE TABLE db1.late_rows (k STRING) WITH ('connector' = 'print', 'print-identifier' = 'wrong');
SET 'weir.late-records.table' = 'late_rows';
USE db1;
CREATE TABLE src (k STRING, v BIGINT, ts_ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ts_ms, 3),
  WATERMARK FOR ts AS ts - INTERVAL '0' SECOND) WITH ('connector' = 'filesystem', 'path' = 'in.json', 'format' = 'json');
CREATE VIEW w AS SELECT window_start, k, COUNT(*) AS n
FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY window_start, window_end, k;
USE default_database;
SELECT * FROM db1.w;
