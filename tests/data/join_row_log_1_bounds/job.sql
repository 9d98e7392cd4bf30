-- A join of q7's shape whose left side is bounded (its rows dropped once
-- the watermark passes ts + 100 ms: row log "1 left+time right" in a weir
-- of the first element format, the time an i64 before each row), and
-- unbounded.sql, the same query with the bounds written so that the
-- planner does not see them (every row kept, "1 left right": no time).
-- Both give the same results. The fixtures beside it are checkpoints of
-- each written by a weir of row-log format 1 (make.sh); each restores
-- into the other (test_restore_join_row_log_1_bounds.sh).
SET 'state.checkpoints.dir' = 'ckpt';
SET 'execution.checkpointing.interval' = '100 ms';
CREATE TABLE gen (id BIGINT, s STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '0.05' SECOND)
WITH ('connector' = 'datagen', 'rows-per-second' = '600', 'number-of-rows' = '900', 'scan.parallelism' = '1',
      'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '900',
      'fields.s.length' = '4', 'fields.s.var-len' = 'true',
      'fields.ts.kind' = 'sequence', 'fields.ts.start' = '1000000', 'fields.ts.end' = '1300000');
CREATE TABLE out_bounds (id BIGINT, m BIGINT, s STRING, ts TIMESTAMP(3), mr BIGINT)
WITH ('connector' = 'filesystem', 'path' = 'out_bounds', 'format' = 'debezium-json');
INSERT INTO out_bounds SELECT a.id, a.m, a.s, a.ts, w.mr FROM (SELECT id, id % 7 AS m, s, ts FROM gen) a
  JOIN (SELECT MAX(id % 7) AS mr, window_end AS we FROM TABLE(TUMBLE(TABLE gen, DESCRIPTOR(ts), INTERVAL '0.1' SECOND))
        GROUP BY window_start, window_end) w
  ON a.m = w.mr WHERE a.ts BETWEEN w.we - INTERVAL '0.1' SECOND AND w.we;
