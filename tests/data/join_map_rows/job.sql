-- Regular joins whose insert-only sides keep their rows in a row log: an
-- inner join of two insert-only inputs (the left one's stored rows repeat:
-- a map entry counted them), a LEFT join (its right side logs), a join
-- of an insert-only input with an updating one (the left side logs) and a
-- join with a window aggregation (q7's shape: its left rows, bounded by
-- the window's end, log with their times). The
-- fixtures beside it are checkpoints of this job written by a weir that kept
-- every row in a map entry (make.sh).
SET 'state.checkpoints.dir' = 'ckpt';
SET 'execution.checkpointing.interval' = '100 ms';
CREATE TABLE gen (id BIGINT, r INT, s STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
WITH ('connector' = 'datagen', 'rows-per-second' = '250', 'number-of-rows' = '1000', 'scan.parallelism' = '1',
      'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '1000',
      'fields.r.min' = '-500', 'fields.r.max' = '100000', 'fields.s.length' = '6', 'fields.s.var-len' = 'true',
      'fields.ts.kind' = 'sequence', 'fields.ts.start' = '1000000', 'fields.ts.end' = '1150000');
CREATE VIEW v AS SELECT id, id % 97 AS k, CASE WHEN id % 11 = 0 THEN NULL ELSE r END AS r,
  CASE WHEN id % 13 = 0 THEN NULL ELSE s END AS s, ts FROM gen;
CREATE TABLE inner_out (k BIGINT, m BIGINT, id2 BIGINT, s2 STRING)
WITH ('connector' = 'filesystem', 'path' = 'out_inner', 'format' = 'debezium-json');
CREATE TABLE left_out (k BIGINT, id BIGINT, r INT, id2 BIGINT, r2 INT)
WITH ('connector' = 'filesystem', 'path' = 'out_left', 'format' = 'debezium-json');
CREATE TABLE upd_out (k BIGINT, id BIGINT, s STRING, n BIGINT)
WITH ('connector' = 'filesystem', 'path' = 'out_upd', 'format' = 'debezium-json');
CREATE TABLE bounded_out (id BIGINT, m BIGINT, mr BIGINT)
WITH ('connector' = 'filesystem', 'path' = 'out_bounded', 'format' = 'debezium-json');
INSERT INTO inner_out SELECT a.k, a.m, b.id, b.s FROM (SELECT id % 7 AS k, id % 3 AS m FROM v) a
  JOIN (SELECT id % 7 AS k, id, s FROM v WHERE id % 25 = 0) b ON a.k = b.k AND a.m <> b.id % 4;
INSERT INTO left_out SELECT a.k, a.id, a.r, b.id, b.r FROM v a
  LEFT JOIN (SELECT * FROM v WHERE id % 4 = 1) b ON a.k = b.k AND a.id % 3 = b.id % 3;
INSERT INTO upd_out SELECT a.k, a.id, a.s, c.n FROM v a
  JOIN (SELECT k, COUNT(*) AS n FROM v WHERE id % 2 = 0 GROUP BY k) c ON a.k = c.k;
INSERT INTO bounded_out SELECT a.id, a.m, w.mr FROM (SELECT id, id % 7 AS m, ts FROM v) a
  JOIN (SELECT MAX(id % 7) AS mr, window_end AS we FROM TABLE(TUMBLE(TABLE v, DESCRIPTOR(ts), INTERVAL '10' SECOND))
        GROUP BY window_start, window_end) w
  ON a.m = w.mr WHERE a.ts BETWEEN w.we - INTERVAL '10' SECOND AND w.we;
