-- EXPLAIN of split distinct aggregation (8 buckets). Split: a GROUP BY
-- with COUNT(DISTINCT u) and COUNT(*) (a partial aggregation by k and the
-- bucket of u, then the final one by k); a TUMBLE with COUNT(DISTINCT u)
-- (a partial window aggregation, then the final one over its windows);
-- COUNT(DISTINCT u) and AVG(v) (the partial phase takes SUM(v) and
-- COUNT(v), the final one their SUM and SUM0, and a Calc divides them by
-- $AVG, cast to AVG's INT). Kept in one piece: an AVG of DOUBLE (the sums
-- would round otherwise), a window aggregation with two distinct columns
-- (windows are not expanded), and a GROUP BY without a DISTINCT aggregate.
SET 'table.optimizer.distinct-agg.split.enabled' = 'true';
SET 'table.optimizer.distinct-agg.split.bucket-num' = '8';
CREATE TABLE t (k STRING, u STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
  WITH ('connector' = 'datagen', 'number-of-rows' = '10');
CREATE TABLE o (k STRING, a BIGINT, b BIGINT) WITH ('connector' = 'blackhole');
EXPLAIN STATEMENT SET BEGIN
INSERT INTO o SELECT k, COUNT(DISTINCT u), COUNT(*) FROM t GROUP BY k;
INSERT INTO o SELECT k, COUNT(DISTINCT u), COUNT(*) FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND))
  GROUP BY k, window_start, window_end;
INSERT INTO o SELECT k, COUNT(DISTINCT u), AVG(v) FROM t GROUP BY k;
INSERT INTO o SELECT k, COUNT(DISTINCT u), CAST(AVG(CAST(v AS DOUBLE)) AS BIGINT) FROM t GROUP BY k;
INSERT INTO o SELECT k, COUNT(DISTINCT u), COUNT(DISTINCT v) FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND))
  GROUP BY k, window_start, window_end;
INSERT INTO o SELECT k, COUNT(u), SUM(v) FROM t GROUP BY k;
END;
