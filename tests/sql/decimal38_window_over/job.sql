-- A DECIMAL(38, 2) past 18 digits in a TUMBLE window (MIN, MAX,
-- FIRST_VALUE, LAST_VALUE, COUNT/SUM(DISTINCT)) and OVER a ROWS frame
-- (LAG, MAX of the last two rows); NULLs are skipped, negatives order
-- below positives.
CREATE TABLE t (k STRING, amount DECIMAL(38, 2), ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
  WITH ('connector' = 'filesystem', 'path' = 'in.csv', 'format' = 'csv');
CREATE TABLE w (k STRING, ws TIMESTAMP(3), mn DECIMAL(38, 2), mx DECIMAL(38, 2), f DECIMAL(38, 2),
  l DECIMAL(38, 2), cd BIGINT, sd DECIMAL(38, 2)) WITH ('connector' = 'print');
CREATE TABLE o (k STRING, amount DECIMAL(38, 2), prev DECIMAL(38, 2), mx2 DECIMAL(38, 2)) WITH ('connector' = 'print');
EXECUTE STATEMENT SET BEGIN
INSERT INTO w SELECT k, window_start, MIN(amount), MAX(amount), FIRST_VALUE(amount), LAST_VALUE(amount),
  COUNT(DISTINCT amount), SUM(DISTINCT amount)
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' HOUR)) GROUP BY k, window_start, window_end;
INSERT INTO o SELECT k, amount, LAG(amount) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN 1 PRECEDING AND CURRENT ROW),
  MAX(amount) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)
FROM t;
END;
