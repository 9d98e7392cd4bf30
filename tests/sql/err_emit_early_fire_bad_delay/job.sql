-- A delay that is no duration: the error names its own SET.
SET 'table.exec.emit.early-fire.enabled' = 'true';
SET 'table.exec.emit.early-fire.delay' = 'soon';
CREATE TABLE t (k STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
CREATE TABLE o (k STRING, n BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO o SELECT k, COUNT(*) FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' SECOND))
GROUP BY k, window_start, window_end;
