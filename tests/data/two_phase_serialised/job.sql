-- A window aggregation in two phases (COUNT(*), COUNT, SUM, AVG of a
-- DECIMAL, MAX) over keys of which one carries half of the rows. The
-- fixtures beside it are checkpoints of this job written by a weir whose
-- local phase sent every partial accumulator serialised (make.sh).
SET 'state.checkpoints.dir' = 'ckpt';
SET 'execution.checkpointing.interval' = '100 ms';
SET 'table.optimizer.agg-phase-strategy' = 'TWO_PHASE';
CREATE TABLE gen (id BIGINT, k INT, r INT, ts AS TO_TIMESTAMP_LTZ(1000000 + id * 25, 3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'datagen', 'rows-per-second' = '500', 'number-of-rows' = '2000', 'scan.parallelism' = '1',
      'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '2000',
      'fields.k.min' = '1', 'fields.k.max' = '20', 'fields.r.min' = '-500', 'fields.r.max' = '100000');
CREATE VIEW v AS SELECT CASE WHEN id % 2 = 0 THEN 0 ELSE k END AS k,
  CASE WHEN id % 7 = 0 THEN NULL ELSE r END AS r, CAST(r AS DECIMAL(10, 2)) / 4 AS d, ts FROM gen;
CREATE TABLE out_win (k INT, ws TIMESTAMP_LTZ(3), n BIGINT, c BIGINT, s BIGINT, a DECIMAL(38, 6), m INT)
WITH ('connector' = 'filesystem', 'path' = 'out_win', 'format' = 'json');
INSERT INTO out_win SELECT k, window_start, COUNT(*), COUNT(r), SUM(r), AVG(d), MAX(r)
FROM TABLE(TUMBLE(TABLE v, DESCRIPTOR(ts), INTERVAL '5' SECOND)) GROUP BY k, window_start, window_end;
