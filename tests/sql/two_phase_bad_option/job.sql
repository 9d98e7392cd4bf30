-- table.optimizer.agg-phase-strategy takes AUTO, ONE_PHASE or TWO_PHASE.
SET 'table.optimizer.agg-phase-strategy' = 'THREE_PHASE';
CREATE TABLE t (k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
  WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE o (k STRING, n BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO o SELECT k, COUNT(*) FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND))
  GROUP BY k, window_start, window_end;
