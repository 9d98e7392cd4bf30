-- job.sql's query with its time bounds hidden from the planner (NOT ...):
-- the left side is not bounded and keeps every row, with no time.
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
  ON a.m = w.mr WHERE NOT (a.ts < w.we - INTERVAL '0.1' SECOND) AND NOT (a.ts > w.we);
