-- COUNT(DISTINCT a, b, ...): the distinct tuples of the rows where none of
-- the values is NULL, in an updating GROUP BY (with FILTER), in a TUMBLE
-- window aggregation and in an OVER frame. A tuple's DOUBLE compares as
-- COUNT(DISTINCT d) of that column alone does: -0.0 and 0.0 are one value.
CREATE TABLE t (k STRING, v INT, s STRING, d DOUBLE, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
  WITH ('connector' = 'filesystem', 'path' = 't.json', 'format' = 'json');
CREATE TABLE grp (k STRING, vs BIGINT, sv BIGINT, vsd BIGINT, vd BIGINT, f BIGINT) WITH ('connector' = 'print', 'print-identifier' = 'grp');
CREATE TABLE tum (k STRING, ws TIMESTAMP(3), vs BIGINT, n BIGINT) WITH ('connector' = 'print', 'print-identifier' = 'tumble');
CREATE TABLE ovr (k STRING, v INT, vs BIGINT) WITH ('connector' = 'print', 'print-identifier' = 'over');
EXECUTE STATEMENT SET BEGIN
INSERT INTO grp
SELECT k, COUNT(DISTINCT v, s), COUNT(DISTINCT s, v), COUNT(DISTINCT v, s, d), COUNT(DISTINCT v, d),
       COUNT(DISTINCT v, s) FILTER (WHERE s <> 'x')
FROM t GROUP BY k;
INSERT INTO tum
SELECT k, window_start, COUNT(DISTINCT v, s), COUNT(*)
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND)) GROUP BY k, window_start, window_end;
INSERT INTO ovr
SELECT k, v, COUNT(DISTINCT v, s) OVER w
FROM t WINDOW w AS (PARTITION BY k ORDER BY ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW);
END;
