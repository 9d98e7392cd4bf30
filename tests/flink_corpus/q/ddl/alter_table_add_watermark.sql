-- ALTER TABLE ... ADD WATERMARK
CREATE TABLE t (user_name STRING, url STRING, ctime TIMESTAMP(3)) WITH ('connector' = 'filesystem', 'path' = 'data/clicks.csv', 'format' = 'csv');
ALTER TABLE t ADD WATERMARK FOR ctime AS ctime;
SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ctime), INTERVAL '5' MINUTES)) GROUP BY window_start, window_end;
