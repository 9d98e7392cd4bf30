-- EXPLAIN of two-phase aggregation (table.optimizer.agg-phase-strategy).
-- TWO_PHASE (AUTO keeps one phase): a TUMBLE aggregation of COUNT/SUM/MAX becomes
-- LocalWindowAggregate (slices of 5 s: the tumbling size) before the keyed
-- exchange and GlobalWindowAggregate after it; a HOP of 10 s every 4 s
-- slices by 2 s (their greatest common divisor). LISTAGG depends on the
-- order of the rows and a SESSION window's extent on their gaps: those
-- stay one WindowAggregate. The GROUP BY splits only with mini-batch on:
-- LocalGroupAggregate / GlobalGroupAggregate.
SET 'table.optimizer.agg-phase-strategy' = 'two_phase';
SET 'table.exec.mini-batch.enabled' = 'true';
CREATE TABLE t (k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
  WITH ('connector' = 'datagen', 'number-of-rows' = '10', 'scan.parallelism' = '2');
CREATE TABLE o (k STRING, n BIGINT, s BIGINT, m INT) WITH ('connector' = 'blackhole');
CREATE TABLE l (k STRING, s STRING) WITH ('connector' = 'blackhole');
EXPLAIN STATEMENT SET BEGIN
INSERT INTO o SELECT k, COUNT(*), SUM(v), MAX(v) FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND))
  GROUP BY k, window_start, window_end;
INSERT INTO o SELECT k, COUNT(*), SUM(v), MIN(v) FROM TABLE(HOP(TABLE t, DESCRIPTOR(ts), INTERVAL '4' SECOND, INTERVAL '10' SECOND))
  GROUP BY k, window_start, window_end;
INSERT INTO l SELECT k, LISTAGG(CAST(v AS STRING)) FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND))
  GROUP BY k, window_start, window_end;
INSERT INTO o SELECT k, COUNT(*), SUM(v), MAX(v) FROM TABLE(SESSION(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND))
  GROUP BY k, window_start, window_end;
INSERT INTO o SELECT k, COUNT(*), SUM(v), MAX(v) FROM t GROUP BY k;
END;
