-- Flink's window SEMI and ANTI joins: IN / EXISTS / NOT IN / NOT EXISTS
-- subqueries correlated on the window bounds of two TUMBLE windows (the
-- shapes of Flink's window-join page). A window's left rows are emitted
-- when the window fires (W >= end), once each, append-only. Worked by hand
-- (watermark: row_time - 1 s, per input):
--   [12:00, 12:05): left L1 (1), L3 (3); right R2 (2), R3 (3).
--   [12:05, 12:10): left L2 (2), L4 (4), L5 (NULL); right R4 (4), R5 (NULL).
--   [12:10, 12:15): left L7 (6); no right row.
--   L6 (12:01) comes after L5 (12:07): the left watermark is 12:06:59,
--   past the end of its window: late, dropped everywhere.
-- IN and EXISTS (L.num = R.num): L3, L4.
-- NOT EXISTS: L1; L2 and L5 (a NULL num matches nothing); L7 (no right row).
-- NOT IN: L1 (1 is not 2 or 3); nothing of [12:05, 12:10), whose subquery
--   holds a NULL (x NOT IN (..., NULL) is never TRUE); L7 (NOT IN of an
--   empty subquery is TRUE, a NULL x included).
CREATE TABLE LeftTable (row_time TIMESTAMP(3), num INT, id STRING,
  WATERMARK FOR row_time AS row_time - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = 'left.csv', 'format' = 'csv');
CREATE TABLE RightTable (row_time TIMESTAMP(3), num INT, id STRING,
  WATERMARK FOR row_time AS row_time - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = 'right.csv', 'format' = 'csv');
CREATE TABLE p_in (id STRING, num INT, window_start TIMESTAMP(3), window_end TIMESTAMP(3))
  WITH ('connector' = 'print', 'print-identifier' = 'in');
CREATE TABLE p_exists (id STRING, num INT, window_start TIMESTAMP(3), window_end TIMESTAMP(3))
  WITH ('connector' = 'print', 'print-identifier' = 'exists');
CREATE TABLE p_not_exists (id STRING, num INT, window_start TIMESTAMP(3), window_end TIMESTAMP(3))
  WITH ('connector' = 'print', 'print-identifier' = 'not_exists');
CREATE TABLE p_not_in (id STRING, num INT, window_start TIMESTAMP(3), window_end TIMESTAMP(3))
  WITH ('connector' = 'print', 'print-identifier' = 'not_in');

EXECUTE STATEMENT SET BEGIN
  INSERT INTO p_in
  SELECT id, num, window_start, window_end
  FROM (
      SELECT * FROM TABLE(TUMBLE(TABLE LeftTable, DESCRIPTOR(row_time), INTERVAL '5' MINUTES))
  ) L WHERE L.num IN (
      SELECT num FROM (
          SELECT * FROM TABLE(TUMBLE(TABLE RightTable, DESCRIPTOR(row_time), INTERVAL '5' MINUTES))
      ) R WHERE L.window_start = R.window_start AND L.window_end = R.window_end);
  INSERT INTO p_exists
  SELECT id, num, window_start, window_end
  FROM (
      SELECT * FROM TABLE(TUMBLE(TABLE LeftTable, DESCRIPTOR(row_time), INTERVAL '5' MINUTES))
  ) L WHERE EXISTS (
      SELECT * FROM (
          SELECT * FROM TABLE(TUMBLE(TABLE RightTable, DESCRIPTOR(row_time), INTERVAL '5' MINUTES))
      ) R WHERE L.num = R.num AND L.window_start = R.window_start AND L.window_end = R.window_end);
  -- the window TVFs directly, without the derived tables
  INSERT INTO p_not_exists
  SELECT id, num, window_start, window_end
  FROM TABLE(TUMBLE(TABLE LeftTable, DESCRIPTOR(row_time), INTERVAL '5' MINUTES)) L
  WHERE NOT EXISTS (
      SELECT * FROM TABLE(TUMBLE(TABLE RightTable, DESCRIPTOR(row_time), INTERVAL '5' MINUTES)) R
      WHERE L.num = R.num AND L.window_start = R.window_start AND L.window_end = R.window_end);
  INSERT INTO p_not_in
  SELECT id, num, window_start, window_end
  FROM (
      SELECT * FROM TABLE(TUMBLE(TABLE LeftTable, DESCRIPTOR(row_time), INTERVAL '5' MINUTES))
  ) L WHERE L.num NOT IN (
      SELECT num FROM (
          SELECT * FROM TABLE(TUMBLE(TABLE RightTable, DESCRIPTOR(row_time), INTERVAL '5' MINUTES))
      ) R WHERE L.window_start = R.window_start AND L.window_end = R.window_end);
END;
