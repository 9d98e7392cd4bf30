-- Two-phase aggregation forced (table.optimizer.agg-phase-strategy =
-- TWO_PHASE): TUMBLE, HOP and CUMULATE window aggregations and a mini-batch
-- GROUP BY run as a local aggregation before the exchange and a global one
-- after it. The results are those of one phase: COUNT(*) counts the NULL
-- row, COUNT/SUM/MIN/MAX/AVG skip it, FILTER counts only v > 1, AVG of an
-- INT truncates. The row (a, 100, 00:00:02) comes after the watermark
-- reached 00:00:12: every window it belongs to has fired (TUMBLE [0, 5),
-- HOP [-5, 5) and [0, 10), CUMULATE [0, 5) and [0, 10)), so it is late
-- and counted nowhere - though the GROUP BY, which has no windows, takes it.
SET 'table.optimizer.agg-phase-strategy' = 'TWO_PHASE';
SET 'table.exec.mini-batch.enabled' = 'true';
CREATE TABLE t (k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
  WITH ('connector' = 'filesystem', 'path' = 't.json', 'format' = 'json');
CREATE TABLE tum (k STRING, ws TIMESTAMP(3), n BIGINT, c BIGINT, s BIGINT, mi INT, ma INT, av INT, f BIGINT)
  WITH ('connector' = 'print', 'print-identifier' = 'tumble');
CREATE TABLE hop (k STRING, ws TIMESTAMP(3), we TIMESTAMP(3), n BIGINT, s BIGINT)
  WITH ('connector' = 'print', 'print-identifier' = 'hop');
CREATE TABLE cum (ws TIMESTAMP(3), we TIMESTAMP(3), n BIGINT, ma INT)
  WITH ('connector' = 'print', 'print-identifier' = 'cumulate');
CREATE TABLE grp (k STRING, n BIGINT, s BIGINT, mi INT)
  WITH ('connector' = 'print', 'print-identifier' = 'grp');
EXECUTE STATEMENT SET BEGIN
INSERT INTO tum
SELECT k, window_start, COUNT(*), COUNT(v), SUM(v), MIN(v), MAX(v), AVG(v), COUNT(*) FILTER (WHERE v > 1)
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND)) GROUP BY k, window_start, window_end;
INSERT INTO hop
SELECT k, window_start, window_end, COUNT(*), SUM(v)
FROM TABLE(HOP(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND)) GROUP BY k, window_start, window_end;
INSERT INTO cum
SELECT window_start, window_end, COUNT(*), MAX(v)
FROM TABLE(CUMULATE(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND)) GROUP BY window_start, window_end;
INSERT INTO grp SELECT k, COUNT(*), SUM(v), MIN(v) FROM t GROUP BY k;
END;
