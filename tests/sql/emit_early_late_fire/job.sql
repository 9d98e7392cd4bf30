-- Early firings with delay 0 fire on every record, as in Flink: each one
-- retracts the window's previous result. A late firing with a delay (1 h
-- of processing time, which this job never reaches) still fires when the
-- input ends: the late records' updates are never lost.
SET 'table.exec.emit.early-fire.enabled' = 'true';
SET 'table.exec.emit.early-fire.delay' = '0 ms';
SET 'table.exec.emit.allow-lateness' = '1 min';
SET 'table.exec.emit.late-fire.enabled' = 'true';
SET 'table.exec.emit.late-fire.delay' = '1 h';
CREATE TABLE e (k STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'e.csv', 'format' = 'csv');
SELECT k, window_start, COUNT(*) AS n
FROM TABLE(TUMBLE(TABLE e, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY k, window_start, window_end;
