-- A join whose rows feed a Top-1 on the join key (as Nexmark q9), with
-- unaligned checkpoints. Each b row meets the 1000 a rows of its key, so
-- the Top-1 has 1000 rows to rank per b row: an earlier weir, which ran the
-- Top-1 in a task of its own behind a keyed exchange, had join rows queued
-- for it when a barrier overtook them. The fixture beside it (make.sh) is
-- such a checkpoint: it holds rows in flight to that Rank task, which this
-- weir runs chained to the join (explain_join_keyed_chain). The Top-1
-- changes once per 100 b rows, so that little output is pending.
SET 'state.checkpoints.dir' = 'ckpt';
SET 'execution.checkpointing.interval' = '100 ms';
SET 'execution.checkpointing.unaligned' = 'true';
SET 'weir.batch-size' = '64';
CREATE TABLE a (id BIGINT, k AS id % 2) WITH ('connector' = 'datagen', 'scan.parallelism' = '1',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '0', 'fields.id.end' = '1999');
CREATE TABLE b (id BIGINT, k AS id % 2) WITH ('connector' = 'datagen', 'scan.parallelism' = '1',
  'rows-per-second' = '5000', 'fields.id.kind' = 'sequence', 'fields.id.start' = '0', 'fields.id.end' = '9999');
CREATE TABLE out_top (k BIGINT, v BIGINT) WITH (
  'connector' = 'filesystem', 'path' = 'out_top', 'format' = 'debezium-json');
INSERT INTO out_top SELECT k, v FROM (
  SELECT a.k, b.id / 100 AS v, ROW_NUMBER() OVER (PARTITION BY a.k ORDER BY b.id / 100 DESC) AS rn
  FROM a JOIN b ON a.k = b.k) WHERE rn = 1;
