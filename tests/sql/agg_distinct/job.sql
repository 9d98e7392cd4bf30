-- DISTINCT in SUM and AVG (and COUNT beside them): in an updating GROUP BY,
-- in TUMBLE and HOP window aggregations (the HOP window [0s, 10s) of b sees
-- 4 in both of its slices and must count it once) and in a bounded OVER
-- frame, where values leave the frame again. NULLs are skipped; AVG of an
-- INT column is an INT (truncated), as in Flink.
CREATE TABLE t (k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
  WITH ('connector' = 'filesystem', 'path' = 't.json', 'format' = 'json');
CREATE TABLE grp (k STRING, s BIGINT, av INT, c BIGINT, sa BIGINT) WITH ('connector' = 'print', 'print-identifier' = 'grp');
CREATE TABLE tum (k STRING, ws TIMESTAMP(3), s BIGINT, av INT, c BIGINT) WITH ('connector' = 'print', 'print-identifier' = 'tumble');
CREATE TABLE hop (k STRING, ws TIMESTAMP(3), s BIGINT, c BIGINT) WITH ('connector' = 'print', 'print-identifier' = 'hop');
CREATE TABLE ovr (k STRING, v INT, s BIGINT, av INT) WITH ('connector' = 'print', 'print-identifier' = 'over');
EXECUTE STATEMENT SET BEGIN
INSERT INTO grp SELECT k, SUM(DISTINCT v), AVG(DISTINCT v), COUNT(DISTINCT v), SUM(v) FROM t GROUP BY k;
INSERT INTO tum
SELECT k, window_start, SUM(DISTINCT v), AVG(DISTINCT v), COUNT(DISTINCT v)
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND)) GROUP BY k, window_start, window_end;
INSERT INTO hop
SELECT k, window_start, SUM(DISTINCT v), COUNT(DISTINCT v)
FROM TABLE(HOP(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND)) GROUP BY k, window_start, window_end;
INSERT INTO ovr
SELECT k, v, SUM(DISTINCT v) OVER w, AVG(DISTINCT v) OVER w
FROM t WINDOW w AS (PARTITION BY k ORDER BY ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW);
END;
