-- Two-phase aggregation over one fixed-width key, which the local phase
-- groups by the key's value and a NULL flag instead of its encoding: the
-- NULL key and the key 0 stay apart (both are 0 as values), a BOOLEAN key
-- (one byte, NULL where v is) groups like an INT one, and the slices of
-- a HOP window keep a key's rows of different slices apart. The results
-- are those of one phase.
SET 'table.optimizer.agg-phase-strategy' = 'TWO_PHASE';
CREATE TABLE t (k INT, v INT, ts TIMESTAMP(3), b AS v > 2, WATERMARK FOR ts AS ts)
  WITH ('connector' = 'filesystem', 'path' = 't.json', 'format' = 'json');
CREATE TABLE tum (k INT, ws TIMESTAMP(3), n BIGINT, s BIGINT, m INT)
  WITH ('connector' = 'print', 'print-identifier' = 'tumble');
CREATE TABLE hop (k INT, ws TIMESTAMP(3), n BIGINT)
  WITH ('connector' = 'print', 'print-identifier' = 'hop');
CREATE TABLE bool (b BOOLEAN, ws TIMESTAMP(3), n BIGINT, s BIGINT)
  WITH ('connector' = 'print', 'print-identifier' = 'bool');
EXECUTE STATEMENT SET BEGIN
INSERT INTO tum
SELECT k, window_start, COUNT(*), SUM(v), MAX(v)
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND)) GROUP BY k, window_start, window_end;
INSERT INTO hop
SELECT k, window_start, COUNT(*)
FROM TABLE(HOP(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND)) GROUP BY k, window_start, window_end;
INSERT INTO bool
SELECT b, window_start, COUNT(*), SUM(v)
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND)) GROUP BY b, window_start, window_end;
END;
