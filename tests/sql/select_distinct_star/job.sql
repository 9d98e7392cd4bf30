-- SELECT DISTINCT * groups by every column the star stands for: a plain
-- table; a join (both k columns, told apart by their qualifiers); t.* and
-- an expression beside it; a USING join (one k); and a TUMBLE table
-- function, whose window_start, window_end and window_time are columns
-- of the star too (a window aggregation: rows of other windows are kept).
CREATE TABLE t (k INT, a DOUBLE, b STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
  WITH ('connector' = 'filesystem', 'path' = 't.json', 'format' = 'json');
CREATE TABLE u (k INT, c STRING) WITH ('connector' = 'filesystem', 'path' = 'u.json', 'format' = 'json');
CREATE TABLE o1 (k INT, a DOUBLE, b STRING, ts TIMESTAMP(3)) WITH ('connector' = 'print', 'print-identifier' = 'star');
CREATE TABLE o2 (k INT, a DOUBLE, b STRING, ts TIMESTAMP(3), k2 INT, c STRING) WITH ('connector' = 'print', 'print-identifier' = 'join');
CREATE TABLE o3 (k INT, c STRING, x INT) WITH ('connector' = 'print', 'print-identifier' = 'qual');
CREATE TABLE o4 (k INT, a DOUBLE, b STRING, ts TIMESTAMP(3), c STRING) WITH ('connector' = 'print', 'print-identifier' = 'using');
CREATE TABLE o5 (k INT, a DOUBLE, b STRING, ts TIMESTAMP(3), ws TIMESTAMP(3), we TIMESTAMP(3), wt TIMESTAMP(3))
  WITH ('connector' = 'print', 'print-identifier' = 'tumble');
EXECUTE STATEMENT SET BEGIN
INSERT INTO o1 SELECT DISTINCT * FROM t;
INSERT INTO o2 SELECT DISTINCT * FROM t JOIN u ON t.k = u.k;
INSERT INTO o3 SELECT DISTINCT u.*, t.k + 1 FROM t JOIN u ON t.k = u.k;
INSERT INTO o4 SELECT DISTINCT * FROM t JOIN u USING (k);
INSERT INTO o5 SELECT DISTINCT * FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND));
END;
