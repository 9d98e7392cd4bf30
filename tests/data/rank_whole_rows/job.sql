-- Top-N and deduplication whose kept rows lose the columns their keys
-- hold ("rank rows: 2"): a Top-N with the rank number partitioned by a
-- BIGINT and ordered by a nullable INT (NULLs last) and a BIGINT; a
-- deduplication partitioned by a BIGINT and a nullable STRING, keeping the
-- last row by time; a retractable Top-N over an aggregation; a window
-- Top-N (partitioned by the window's bounds). The fixtures beside it are
-- checkpoints of this job written by a weir that kept every row whole
-- (make.sh).
SET 'state.checkpoints.dir' = 'ckpt';
SET 'execution.checkpointing.interval' = '100 ms';
CREATE TABLE gen (id BIGINT, r INT, s STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'datagen', 'rows-per-second' = '250', 'number-of-rows' = '1000', 'scan.parallelism' = '1',
      'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '1000',
      'fields.r.min' = '-500', 'fields.r.max' = '100000', 'fields.s.length' = '1', 'fields.s.var-len' = 'true',
      'fields.ts.kind' = 'sequence', 'fields.ts.start' = '1000000', 'fields.ts.end' = '1150000');
CREATE VIEW v AS SELECT id, id % 97 - 40 AS k, CASE WHEN id % 11 = 0 THEN NULL ELSE r END AS r,
  CASE WHEN id % 13 = 0 THEN NULL ELSE s END AS s, ts FROM gen;
CREATE TABLE top_out (k BIGINT, id BIGINT, r INT, s STRING, rn BIGINT)
WITH ('connector' = 'filesystem', 'path' = 'out_top', 'format' = 'debezium-json');
CREATE TABLE dedup_out (k BIGINT, s STRING, id BIGINT, r INT, ts TIMESTAMP(3))
WITH ('connector' = 'filesystem', 'path' = 'out_dedup', 'format' = 'debezium-json');
CREATE TABLE retract_out (g BIGINT, k BIGINT, c BIGINT, rn BIGINT)
WITH ('connector' = 'filesystem', 'path' = 'out_retract', 'format' = 'debezium-json');
CREATE TABLE window_out (ws TIMESTAMP(3), we TIMESTAMP(3), id BIGINT, r INT, rn BIGINT)
WITH ('connector' = 'filesystem', 'path' = 'out_window', 'format' = 'debezium-json');
INSERT INTO top_out SELECT k, id, r, s, rn FROM (
  SELECT k, id, r, s, ROW_NUMBER() OVER (PARTITION BY k ORDER BY r DESC NULLS LAST, id) AS rn FROM v) WHERE rn <= 3;
INSERT INTO dedup_out SELECT k, s, id, r, ts FROM (
  SELECT k, s, id, r, ts, ROW_NUMBER() OVER (PARTITION BY k % 7, s ORDER BY ts DESC) AS rn FROM v) WHERE rn = 1;
INSERT INTO retract_out SELECT g, k, c, rn FROM (
  SELECT g, k, c, ROW_NUMBER() OVER (PARTITION BY g ORDER BY c DESC, k) AS rn
  FROM (SELECT k % 5 AS g, k, COUNT(*) AS c FROM v GROUP BY k % 5, k)) WHERE rn <= 2;
INSERT INTO window_out SELECT window_start, window_end, id, r, rn FROM (
  SELECT window_start, window_end, id, r, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY r DESC, id) AS rn
  FROM TABLE(TUMBLE(TABLE v, DESCRIPTOR(ts), INTERVAL '0.1' SECOND))) WHERE rn <= 2;
