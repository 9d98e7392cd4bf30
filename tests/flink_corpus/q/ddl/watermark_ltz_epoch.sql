-- CREATE TABLE: TIMESTAMP_LTZ rowtime from epoch millis (TO_TIMESTAMP_LTZ(ms, 3))
-- oracle: VALUES ('2024-01-01 00:00:00', 100)
CREATE TABLE ep (ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ms, 3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
  WITH ('connector' = 'datagen', 'number-of-rows' = '100', 'fields.ms.kind' = 'sequence', 'fields.ms.start' = '1704067200000', 'fields.ms.end' = '1704067200099');
SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE ep, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY window_start, window_end;
