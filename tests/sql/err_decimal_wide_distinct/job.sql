-- SUM/AVG(DISTINCT x) keep their distinct values as 8-byte values: a DECIMAL
-- of more than 18 digits is refused by name rather than counted wrongly
-- (it summed 2.00 twice), with the distinct split on or off.
SET 'table.optimizer.distinct-agg.split.enabled' = 'true';
CREATE TABLE t (k STRING, amount DECIMAL(20, 2)) WITH ('connector' = 'filesystem', 'path' = 'in.csv', 'format' = 'csv');
CREATE TABLE o (k STRING, m DECIMAL(20, 2)) WITH ('connector' = 'print');
INSERT INTO o SELECT k, AVG(DISTINCT amount) FROM t GROUP BY k;
