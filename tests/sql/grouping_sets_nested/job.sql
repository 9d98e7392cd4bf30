-- Nested grouping constructs, expanded as Calcite does: a composite
-- element comes and goes as one (ROLLUP((a, b), c) is the sets (a, b, c),
-- (a, b), ()); ROLLUP inside GROUPING SETS adds its sets to the list
-- ((a, b), ROLLUP(a, c)) is (a, b), (a, c), (a), ()); a set of several
-- items is their cross product ((CUBE(b), c) is (b, c), (c)); and a
-- composite ROLLUP in a window aggregation.
CREATE TABLE t (a STRING, b INT, c INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
  WITH ('connector' = 'filesystem', 'path' = 't.json', 'format' = 'json');
CREATE TABLE r (a STRING, b INT, c INT, g BIGINT, n BIGINT) WITH ('connector' = 'print', 'print-identifier' = 'rollup');
CREATE TABLE gs (a STRING, b INT, c INT, g BIGINT, n BIGINT) WITH ('connector' = 'print', 'print-identifier' = 'sets');
CREATE TABLE cs (a STRING, b INT, c INT, g BIGINT, n BIGINT) WITH ('connector' = 'print', 'print-identifier' = 'cube');
CREATE TABLE w (ws TIMESTAMP(3), a STRING, b INT, n BIGINT, g BIGINT) WITH ('connector' = 'print', 'print-identifier' = 'win');
EXECUTE STATEMENT SET BEGIN
INSERT INTO r SELECT a, b, c, GROUPING_ID(a, b, c), COUNT(*) FROM t GROUP BY ROLLUP((a, b), c);
INSERT INTO gs SELECT a, b, c, GROUPING_ID(a, b, c), COUNT(*) FROM t GROUP BY GROUPING SETS ((a, b), ROLLUP(a, c));
INSERT INTO cs SELECT a, b, c, GROUPING_ID(a, b, c), COUNT(*) FROM t GROUP BY GROUPING SETS (a, (CUBE(b), c));
INSERT INTO w
SELECT window_start, a, b, COUNT(*), GROUPING(a, b)
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY window_start, window_end, ROLLUP((a, b));
END;
