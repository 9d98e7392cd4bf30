-- A regular join (LEFT: its rows count matches), a semi join, an interval
-- join, a Top-N and a deduplication, their rows with NULLs, negative
-- numbers and strings. The
-- fixtures beside it are checkpoints of this job written by a weir that kept
-- these rows in the canonical encoding (make.sh).
SET 'state.checkpoints.dir' = 'ckpt';
SET 'execution.checkpointing.interval' = '100 ms';
CREATE TABLE gen (id BIGINT, r INT, s STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'datagen', 'rows-per-second' = '250', 'number-of-rows' = '1000', 'scan.parallelism' = '1',
      'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '1000',
      'fields.r.min' = '-500', 'fields.r.max' = '100000', 'fields.s.length' = '6', 'fields.s.var-len' = 'true',
      'fields.ts.kind' = 'sequence', 'fields.ts.start' = '1000000', 'fields.ts.end' = '1150000');
CREATE VIEW v AS SELECT id, id % 97 AS k, CASE WHEN id % 11 = 0 THEN NULL ELSE r END AS r,
  CASE WHEN id % 13 = 0 THEN NULL ELSE s END AS s, ts FROM gen;
CREATE TABLE join_out (k BIGINT, id BIGINT, r INT, s STRING, id2 BIGINT, r2 INT)
WITH ('connector' = 'filesystem', 'path' = 'out_join', 'format' = 'debezium-json');
CREATE TABLE semi_out (k BIGINT, id BIGINT, s STRING)
WITH ('connector' = 'filesystem', 'path' = 'out_semi', 'format' = 'debezium-json');
CREATE TABLE ival_out (id BIGINT, r INT, id2 BIGINT, s2 STRING)
WITH ('connector' = 'filesystem', 'path' = 'out_ival', 'format' = 'debezium-json');
CREATE TABLE top_out (k BIGINT, id BIGINT, r INT, s STRING, rn BIGINT)
WITH ('connector' = 'filesystem', 'path' = 'out_top', 'format' = 'debezium-json');
CREATE TABLE dedup_out (k BIGINT, id BIGINT, r INT, s STRING)
WITH ('connector' = 'filesystem', 'path' = 'out_dedup', 'format' = 'debezium-json');
INSERT INTO join_out SELECT a.k, a.id, a.r, a.s, b.id, b.r FROM v a
  LEFT JOIN (SELECT * FROM v WHERE id % 5 = 0) b ON a.k = b.k AND a.id % 4 = b.id % 4;
INSERT INTO top_out SELECT k, id, r, s, rn FROM (
  SELECT k, id, r, s, ROW_NUMBER() OVER (PARTITION BY k % 31 ORDER BY r DESC NULLS LAST, id) AS rn FROM v) WHERE rn <= 3;
INSERT INTO dedup_out SELECT k, id, r, s FROM (
  SELECT k, id, r, s, ROW_NUMBER() OVER (PARTITION BY k % 23 ORDER BY ts DESC) AS rn FROM v) WHERE rn = 1;
INSERT INTO semi_out SELECT k, id, s FROM v WHERE k IN (SELECT k FROM v WHERE id % 7 = 3);
INSERT INTO ival_out SELECT a.id, a.r, b.id, b.s FROM v a, v b
  WHERE a.k = b.k AND b.ts BETWEEN a.ts - INTERVAL '0.2' SECOND AND a.ts;
