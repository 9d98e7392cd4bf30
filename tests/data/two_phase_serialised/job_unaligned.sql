-- A GROUP BY in two phases with unaligned checkpoints, whose global phase
-- (behind a keyed exchange that small batches keep busy) has partial rows
-- queued when a barrier overtakes them. The fixture beside it (unaligned/,
-- make.sh) is such a checkpoint of a weir whose partial rows were
-- serialised: it holds them in flight, in that form.
SET 'state.checkpoints.dir' = 'ckpt';
SET 'execution.checkpointing.interval' = '100 ms';
SET 'execution.checkpointing.unaligned' = 'true';
SET 'table.optimizer.agg-phase-strategy' = 'TWO_PHASE';
SET 'table.exec.mini-batch.enabled' = 'true';
SET 'parallelism.default' = '2';
SET 'weir.batch-size' = '64';
CREATE TABLE gen (k BIGINT, r BIGINT)
WITH ('connector' = 'datagen', 'number-of-rows' = '50000000', 'fields.k.min' = '1', 'fields.k.max' = '2000',
      'fields.r.min' = '0', 'fields.r.max' = '1000');
CREATE TABLE out_grp (k BIGINT, n BIGINT, s BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO out_grp SELECT k, COUNT(*), SUM(r) FROM gen GROUP BY k;
