-- LISTAGG(x [, separator]): the non-NULL values in arrival order, joined by
-- ',' or the separator; NULL when every value is NULL. In an updating
-- GROUP BY, a TUMBLE window and a HOP window (whose slices join in time
-- order).
CREATE TABLE t (k STRING, s STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
  WITH ('connector' = 'filesystem', 'path' = 't.json', 'format' = 'json');
CREATE TABLE grp (k STRING, l1 STRING, l2 STRING, l3 STRING) WITH ('connector' = 'print', 'print-identifier' = 'grp');
CREATE TABLE tum (k STRING, ws TIMESTAMP(3), l STRING) WITH ('connector' = 'print', 'print-identifier' = 'tumble');
CREATE TABLE hop (k STRING, ws TIMESTAMP(3), l STRING) WITH ('connector' = 'print', 'print-identifier' = 'hop');
EXECUTE STATEMENT SET BEGIN
INSERT INTO grp SELECT k, LISTAGG(s), LISTAGG(s, '-'), listagg(s, '') FROM t GROUP BY k;
INSERT INTO tum
SELECT k, window_start, LISTAGG(s, ';')
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND)) GROUP BY k, window_start, window_end;
INSERT INTO hop
SELECT k, window_start, LISTAGG(s)
FROM TABLE(HOP(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND)) GROUP BY k, window_start, window_end;
END;
