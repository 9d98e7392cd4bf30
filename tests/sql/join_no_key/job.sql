-- Joins without an equality (Flink runs them as well): every row of one
-- side meets every row of the other and the condition decides; weir runs
-- them in one subtask. Worked by hand:
--   a.n < b.m, a = 1, 5, 9 and b = 2, 6:
--     (1,2) (1,6) (5,6)
--   CROSS JOIN: all 6 pairs;
--   an interval join without a key (c.ts within 1 s after d.ts; c = 1.0 s,
--   3.5 s, 6.0 s, d = 0.0 s, 2.0 s, 9.0 s): (1.0, 0.0) only; the result
--   keeps c's time attribute, so a TUMBLE of 5 s counts it: 1 in [0, 5 s).
CREATE TABLE a (n INT, v INT) WITH ('connector' = 'filesystem', 'path' = 'a.csv', 'format' = 'csv');
CREATE TABLE b (m INT, w STRING) WITH ('connector' = 'filesystem', 'path' = 'b.csv', 'format' = 'csv');
CREATE TABLE c (ms BIGINT, x STRING, ts AS TO_TIMESTAMP_LTZ(ms, 3), WATERMARK FOR ts AS ts) WITH (
  'connector' = 'filesystem', 'path' = 'c.csv', 'format' = 'csv');
CREATE TABLE d (ms BIGINT, y STRING, ts AS TO_TIMESTAMP_LTZ(ms, 3), WATERMARK FOR ts AS ts) WITH (
  'connector' = 'filesystem', 'path' = 'd.csv', 'format' = 'csv');
CREATE TABLE p_lt (n INT, m INT) WITH ('connector' = 'print', 'print-identifier' = 'lt');
CREATE TABLE p_cross (n INT, m INT) WITH ('connector' = 'print', 'print-identifier' = 'cross');
CREATE TABLE p_iv (x STRING, y STRING) WITH ('connector' = 'print', 'print-identifier' = 'interval');
CREATE TABLE p_win (cnt BIGINT) WITH ('connector' = 'print', 'print-identifier' = 'win');
CREATE VIEW pairs AS SELECT c.x, d.y, c.ts FROM c JOIN d ON c.ts BETWEEN d.ts AND d.ts + INTERVAL '1' SECOND;
EXECUTE STATEMENT SET BEGIN
  INSERT INTO p_lt SELECT a.n, b.m FROM a JOIN b ON a.n < b.m;
  INSERT INTO p_cross SELECT a.n, b.m FROM a CROSS JOIN b;
  INSERT INTO p_iv SELECT x, y FROM pairs;
  INSERT INTO p_win SELECT COUNT(*) FROM TABLE(TUMBLE(TABLE pairs, DESCRIPTOR(ts), INTERVAL '5' SECOND))
    GROUP BY window_start, window_end;
END;
