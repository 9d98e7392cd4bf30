-- SUM/AVG/COUNT(DISTINCT x) of a DECIMAL of more than 18 digits keep each
-- distinct value whole (all 16 bytes): 2.00 and 999999999999999999.99
-- count once each, and -999999999999999999.99 is another value; with the
-- distinct split on, beside MIN and MAX.
SET 'table.optimizer.distinct-agg.split.enabled' = 'true';
CREATE TABLE t (k STRING, amount DECIMAL(20, 2)) WITH ('connector' = 'filesystem', 'path' = 'in.csv', 'format' = 'csv');
CREATE TABLE o (k STRING, s DECIMAL(38, 2), a DECIMAL(38, 6), c BIGINT, mn DECIMAL(20, 2), mx DECIMAL(20, 2))
  WITH ('connector' = 'filesystem', 'path' = 'o', 'format' = 'debezium-json');
INSERT INTO o SELECT k, SUM(DISTINCT amount), AVG(DISTINCT amount), COUNT(DISTINCT amount), MIN(amount), MAX(amount)
FROM t GROUP BY k;
