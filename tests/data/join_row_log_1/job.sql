-- Regular joins whose insert-only sides keep row logs, and an interval
-- join: an inner join on a BIGINT and a STRING key (format 2 leaves both
-- out of the elements), one on a nullable INT under IS NOT DISTINCT FROM
-- (NULL keys stored), a LEFT join (its right side logs; left rows with a
-- NULL key padded), a join with a window aggregation (q7's shape: the
-- left rows' time is a stored column, no longer an i64 before the row)
-- and a LEFT interval join with NULL keys (map entries). The fixtures
-- beside it are checkpoints of this job at parallelism 2 written by a weir
-- of row-log format 1 ("row log: 1 ...", make.sh).
SET 'state.checkpoints.dir' = 'ckpt';
SET 'execution.checkpointing.interval' = '100 ms';
CREATE TABLE gen (id BIGINT, r INT, s STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '0.05' SECOND)
WITH ('connector' = 'datagen', 'rows-per-second' = '600', 'number-of-rows' = '1500', 'scan.parallelism' = '1',
      'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '1500',
      'fields.r.min' = '-500', 'fields.r.max' = '100000', 'fields.s.length' = '6', 'fields.s.var-len' = 'true',
      'fields.ts.kind' = 'sequence', 'fields.ts.start' = '1000000', 'fields.ts.end' = '1300000');
CREATE VIEW v AS SELECT id, id % 97 AS k, CASE WHEN id % 11 = 0 THEN NULL ELSE r END AS r,
  CASE WHEN id % 13 = 0 THEN NULL ELSE s END AS s, CASE WHEN id % 5 = 0 THEN NULL ELSE CAST(id % 17 AS INT) END AS n,
  CAST('k' || CAST(id % 9 AS STRING) AS STRING) AS ks, ts FROM gen;
CREATE TABLE two_out (k BIGINT, ks STRING, id BIGINT, id2 BIGINT, s2 STRING)
WITH ('connector' = 'filesystem', 'path' = 'out_two', 'format' = 'debezium-json');
CREATE TABLE nsafe_out (n INT, id BIGINT, n2 INT, id2 BIGINT)
WITH ('connector' = 'filesystem', 'path' = 'out_nsafe', 'format' = 'debezium-json');
CREATE TABLE left_out (n INT, id BIGINT, r INT, n2 INT, id2 BIGINT)
WITH ('connector' = 'filesystem', 'path' = 'out_left', 'format' = 'debezium-json');
CREATE TABLE bounded_out (id BIGINT, m BIGINT, ts TIMESTAMP(3), mr BIGINT)
WITH ('connector' = 'filesystem', 'path' = 'out_bounded', 'format' = 'debezium-json');
CREATE TABLE interval_out (n INT, id BIGINT, n2 INT, id2 BIGINT)
WITH ('connector' = 'filesystem', 'path' = 'out_interval', 'format' = 'debezium-json');
INSERT INTO two_out SELECT a.k, a.ks, a.id, b.id, b.s FROM (SELECT id % 7 AS k, ks, id FROM v) a
  JOIN (SELECT id % 7 AS k, ks, id, s FROM v WHERE id % 20 = 0) b ON a.k = b.k AND a.ks = b.ks AND a.id <> b.id % 4;
INSERT INTO nsafe_out SELECT a.n, a.id, b.n, b.id FROM (SELECT n, id FROM v WHERE id % 3 = 0) a
  JOIN (SELECT n, id FROM v WHERE id % 7 = 0) b ON a.n IS NOT DISTINCT FROM b.n AND a.id > b.id - 100;
INSERT INTO left_out SELECT a.n, a.id, a.r, b.n, b.id FROM v a
  LEFT JOIN (SELECT * FROM v WHERE id % 20 = 1) b ON a.n = b.n AND a.id % 3 = b.id % 3;
INSERT INTO bounded_out SELECT a.id, a.m, a.ts, w.mr FROM (SELECT id, id % 7 AS m, ts FROM v) a
  JOIN (SELECT MAX(id % 7) AS mr, window_end AS we FROM TABLE(TUMBLE(TABLE v, DESCRIPTOR(ts), INTERVAL '0.1' SECOND))
        GROUP BY window_start, window_end) w
  ON a.m = w.mr WHERE a.ts BETWEEN w.we - INTERVAL '0.1' SECOND AND w.we;
INSERT INTO interval_out SELECT a.n, a.id, b.n, b.id FROM v a
  LEFT JOIN v b ON a.n = b.n AND a.ts BETWEEN b.ts - INTERVAL '0.02' SECOND AND b.ts + INTERVAL '0.01' SECOND;
