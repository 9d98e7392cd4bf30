-- A window aggregation whose grouping keys are two columns of one name:
-- SELECT DISTINCT k, * over a window table function (k twice), GROUP BY
-- k, k, and SELECT DISTINCT * over a view with two columns named k. Each
-- key is its own column of the window's output, as in a GROUP BY without
-- window (was refused: 'window: output column "k" appears twice').
CREATE TABLE t (k INT, a DOUBLE, b STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
  WITH ('connector' = 'filesystem', 'path' = 't.json', 'format' = 'json');
CREATE VIEW kk AS SELECT k, k + 10 AS k, ts FROM t;
CREATE TABLE o1 (k0 INT, k INT, a DOUBLE, b STRING, ts TIMESTAMP(3), ws TIMESTAMP(3), we TIMESTAMP(3), wt TIMESTAMP(3))
  WITH ('connector' = 'print', 'print-identifier' = 'star');
CREATE TABLE o2 (k1 INT, k2 INT, ws TIMESTAMP(3), n BIGINT) WITH ('connector' = 'print', 'print-identifier' = 'twice');
CREATE TABLE o3 (k1 INT, k2 INT, ts TIMESTAMP(3), ws TIMESTAMP(3), we TIMESTAMP(3), wt TIMESTAMP(3))
  WITH ('connector' = 'print', 'print-identifier' = 'view');
EXECUTE STATEMENT SET BEGIN
INSERT INTO o1 SELECT DISTINCT k, * FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND));
INSERT INTO o2 SELECT k, k, window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND))
  GROUP BY k, k, window_start, window_end;
INSERT INTO o3 SELECT DISTINCT * FROM TABLE(TUMBLE(TABLE kk, DESCRIPTOR(ts), INTERVAL '10' SECOND));
END;
