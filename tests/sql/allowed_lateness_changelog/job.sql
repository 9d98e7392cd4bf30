-- Allowed lateness: a late record inside the lateness updates the window (-U/+U).
SET 'table.exec.emit.allow-lateness' = '10 s';
CREATE TABLE e (k STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'e.csv', 'format' = 'csv');
SELECT k, window_start, COUNT(*) AS n
FROM TABLE(TUMBLE(TABLE e, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY k, window_start, window_end;
