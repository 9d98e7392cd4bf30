-- An inner interval join keeps both inputs' time attributes, as Flink: a
-- window or OVER can take the right side's time (st) as well as the left's
-- (ot), also after a projection that keeps only st. The pairs (id: ot, st):
-- 1: 9.5 s, 10.2 s; 2: 3 s, 3.5 s; 3: 15 s, 15.1 s; 4: 19.9 s, 20.5 s, so
-- 10 s windows over st and over ot group them differently.
CREATE TABLE o (id INT, ms BIGINT, ot AS TO_TIMESTAMP_LTZ(ms, 3), WATERMARK FOR ot AS ot)
  WITH ('connector' = 'filesystem', 'path' = 'o.json', 'format' = 'json');
CREATE TABLE s (id INT, ms BIGINT, st AS TO_TIMESTAMP_LTZ(ms, 3), WATERMARK FOR st AS st)
  WITH ('connector' = 'filesystem', 'path' = 's.json', 'format' = 'json');
CREATE TABLE by_st (ws TIMESTAMP(3), n BIGINT, ids INT) WITH ('connector' = 'print', 'print-identifier' = 'st');
CREATE TABLE by_ot (ws TIMESTAMP(3), n BIGINT, ids INT) WITH ('connector' = 'print', 'print-identifier' = 'ot');
CREATE TABLE right_only (ws TIMESTAMP(3), n BIGINT) WITH ('connector' = 'print', 'print-identifier' = 'projected');
CREATE TABLE over_st (id INT, rk BIGINT) WITH ('connector' = 'print', 'print-identifier' = 'over');
CREATE VIEW j AS SELECT o.id, o.ot, s.st FROM o JOIN s ON o.id = s.id
  AND o.ot BETWEEN s.st - INTERVAL '1' SECOND AND s.st + INTERVAL '2' SECOND;
CREATE VIEW r AS SELECT id, st FROM j;
EXECUTE STATEMENT SET BEGIN
INSERT INTO by_st SELECT window_start, COUNT(*), SUM(id) FROM TABLE(TUMBLE(TABLE j, DESCRIPTOR(st), INTERVAL '10' SECOND))
  GROUP BY window_start, window_end;
INSERT INTO by_ot SELECT window_start, COUNT(*), SUM(id) FROM TABLE(TUMBLE(TABLE j, DESCRIPTOR(ot), INTERVAL '10' SECOND))
  GROUP BY window_start, window_end;
INSERT INTO right_only SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE r, DESCRIPTOR(st), INTERVAL '10' SECOND))
  GROUP BY window_start, window_end;
INSERT INTO over_st SELECT id, COUNT(*) OVER (ORDER BY st ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM j;
END;
