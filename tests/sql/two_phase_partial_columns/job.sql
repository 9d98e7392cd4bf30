-- Two-phase aggregation sends the partial accumulators of COUNT, SUM and
-- AVG as BIGINT columns (their words) and those of MIN/MAX serialised;
-- the global phase merges both. The results are those of one phase:
-- COUNT(v) and SUM(v) skip NULLs and a key with only NULLs sums to NULL;
-- a BIGINT sum wraps (9223372036854775807 + 1) and AVG divides the wrapped
-- sum, truncating; the DECIMAL(38) sum of key a passes 2^127 on its way
-- (9e37 + 9e37) and comes back to 9e37, and key b's -5 keeps the sign of
-- all 192 bits; AVG of DECIMAL(10,2) rounds to its scale; MIN/MAX of
-- strings compare as strings, and MIN/MAX of DOUBLE (-0.0 is 0.0), of a
-- DECIMAL(10,2), of a TIMESTAMP (their 64 bits sent as a column) and of a
-- DECIMAL(38) (serialised) as numbers and times. The GROUP BY's first mini-batch holds key
-- a's first two rows, whose DECIMAL sum (1.8e38) does not fit 38 digits
-- (NULL); the next partial's -9e37 + 1 brings it back to 9e37 + 1.
SET 'table.optimizer.agg-phase-strategy' = 'TWO_PHASE';
SET 'table.exec.mini-batch.enabled' = 'true';
CREATE TABLE t (k STRING, v BIGINT, d DECIMAL(38, 0), m DECIMAL(10, 2), s STRING, x DOUBLE, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts)
  WITH ('connector' = 'filesystem', 'path' = 't.json', 'format' = 'json');
CREATE TABLE tum (k STRING, ws TIMESTAMP(3), n BIGINT, c BIGINT, sv BIGINT, av BIGINT, sd DECIMAL(38, 0),
  am DECIMAL(38, 6), mi STRING, ma STRING,
  xmi DOUBLE, xma DOUBLE, mmi DECIMAL(10, 2), dma DECIMAL(38, 0), tma TIMESTAMP(3))
  WITH ('connector' = 'print', 'print-identifier' = 'tumble');
CREATE TABLE grp (k STRING, n BIGINT, c BIGINT, sv BIGINT, sd DECIMAL(38, 0), am DECIMAL(38, 6), ma STRING)
  WITH ('connector' = 'print', 'print-identifier' = 'grp');
EXECUTE STATEMENT SET BEGIN
INSERT INTO tum
SELECT k, window_start, COUNT(*), COUNT(v), SUM(v), AVG(v), SUM(d), AVG(m), MIN(s), MAX(s),
  MIN(x), MAX(x), MIN(m), MAX(d), MAX(ts)
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND)) GROUP BY k, window_start, window_end;
INSERT INTO grp SELECT k, COUNT(*), COUNT(v), SUM(v), SUM(d), AVG(m), MAX(s) FROM t GROUP BY k;
END;
