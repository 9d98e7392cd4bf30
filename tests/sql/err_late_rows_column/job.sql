-- A late-records table column that a late row cannot fill is refused at
-- plan time, by name (it used to be NULL without a word).
CREATE TABLE src (k STRING, v BIGINT, ts_ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ts_ms, 3),
  WATERMARK FOR ts AS ts - INTERVAL '0' SECOND) WITH ('connector' = 'filesystem', 'path' = 'in.json', 'format' = 'json');
CREATE TABLE late_rows (k STRING, note STRING, `watermark` TIMESTAMP(3))
  WITH ('connector' = 'print', 'print-identifier' = 'late');
SET 'weir.late-records.table' = 'late_rows';
SELECT window_start, k, COUNT(*) FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '1' SECOND))
GROUP BY window_start, window_end, k;
