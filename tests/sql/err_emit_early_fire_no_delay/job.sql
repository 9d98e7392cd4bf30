-- Early firings need a delay; the error names the SET that enabled them,
-- not the window aggregation that reads the setting.
SET 'table.exec.emit.early-fire.enabled' = 'true';
CREATE TABLE t (k STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
CREATE TABLE o (k STRING, n BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO o SELECT k, COUNT(*) FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' SECOND))
GROUP BY k, window_start, window_end;
