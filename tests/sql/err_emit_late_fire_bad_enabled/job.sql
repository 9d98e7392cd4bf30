-- An emit switch that is no boolean is refused at its SET (it was taken as false).
SET 'table.exec.emit.late-fire.enabled' = 'maybe';
SET 'table.exec.emit.allow-lateness' = '1 s';
CREATE TABLE t (k STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
CREATE TABLE o (k STRING, n BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO o SELECT k, COUNT(*) FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' SECOND))
GROUP BY k, window_start, window_end;
