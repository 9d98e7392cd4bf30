-- A DECIMAL of more than 18 digits is aggregated by COUNT, SUM and AVG; MAX
-- refuses it by name rather than compare it wrongly.
CREATE TABLE t (k STRING, amount DECIMAL(38, 2)) WITH ('connector' = 'filesystem', 'path' = 'in.csv', 'format' = 'csv');
CREATE TABLE o (k STRING, m DECIMAL(38, 2)) WITH ('connector' = 'print');
INSERT INTO o SELECT k, MAX(amount) FROM t GROUP BY k;
