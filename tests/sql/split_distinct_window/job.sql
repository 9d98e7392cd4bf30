-- Split distinct aggregation of window TVF aggregations (3 buckets): a
-- partial window aggregation by key, bucket of u and window, and a final
-- one over the partial windows (tumbling windows of the step, ending where
-- they end). The rows are those of one aggregation, every window fired
-- once: TUMBLE a [0, 5) u {x, y} of 3 rows, v 1+2+3; a [5, 10) only the
-- NULL u: COUNT(DISTINCT u) 0; HOP a [0, 10) v {1, 2, 3, 7} = 13; CUMULATE
-- [0, 10) u {x, y, z} over all keys, FILTER (WHERE v > 2) keeps x (3, 5)
-- and the NULL u (7): {x}. The row (a, q, 100, 00:00:02) comes after the
-- watermark reached 00:00:13: every window it belongs to has fired, so it
-- is late in the partial aggregation exactly as in one, and counted
-- nowhere.
SET 'table.optimizer.distinct-agg.split.enabled' = 'true';
SET 'table.optimizer.distinct-agg.split.bucket-num' = '3';
CREATE TABLE t (k STRING, u STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
  WITH ('connector' = 'filesystem', 'path' = 't.json', 'format' = 'json');
CREATE TABLE tum (k STRING, ws TIMESTAMP(3), we TIMESTAMP(3), cu BIGINT, n BIGINT, s BIGINT, mi INT, ma INT)
  WITH ('connector' = 'print', 'print-identifier' = 'tumble');
CREATE TABLE hop (k STRING, ws TIMESTAMP(3), we TIMESTAMP(3), cu BIGINT, sv BIGINT)
  WITH ('connector' = 'print', 'print-identifier' = 'hop');
CREATE TABLE cum (ws TIMESTAMP(3), we TIMESTAMP(3), cu BIGINT, cv BIGINT)
  WITH ('connector' = 'print', 'print-identifier' = 'cumulate');
EXECUTE STATEMENT SET BEGIN
INSERT INTO tum
SELECT k, window_start, window_end, COUNT(DISTINCT u), COUNT(*), SUM(v), MIN(v), MAX(v)
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND)) GROUP BY k, window_start, window_end;
INSERT INTO hop
SELECT k, window_start, window_end, COUNT(DISTINCT u), SUM(DISTINCT v)
FROM TABLE(HOP(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND)) GROUP BY k, window_start, window_end;
INSERT INTO cum
SELECT window_start, window_end, COUNT(DISTINCT u), COUNT(DISTINCT u) FILTER (WHERE v > 2)
FROM TABLE(CUMULATE(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND)) GROUP BY window_start, window_end;
END;
