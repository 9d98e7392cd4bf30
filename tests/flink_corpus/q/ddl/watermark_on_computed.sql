-- CREATE TABLE: watermark on a computed column (TO_TIMESTAMP of a string)
-- oracle: SELECT tumble(ctime, 300), COUNT(*) FROM clicks GROUP BY 1
CREATE TABLE c2 (user_name STRING, url STRING, ctime_str STRING, ts AS TO_TIMESTAMP(ctime_str), WATERMARK FOR ts AS ts - INTERVAL '1' MINUTE)
  WITH ('connector' = 'filesystem', 'path' = 'data/clicks.csv', 'format' = 'csv');
SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE c2, DESCRIPTOR(ts), INTERVAL '5' MINUTES)) GROUP BY window_start, window_end;
