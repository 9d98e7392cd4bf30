-- AVG of a DECIMAL divides SUM's value: where the sum does not fit its
-- DECIMAL(38, s) (here 8 integral digits), SUM and AVG are both NULL (a
-- decimal overflow is NULL, as in Flink), also while the unscaled sum
-- still fits 128 bits (group a: 1.2E8 at scale 30). A sum that fits gives
-- the exact average (b), also after passing 38 digits on the way (c: weir
-- checks the final sum, as for SUM; Flink checks after each addition and
-- would keep c's AVG NULL).
CREATE TABLE t (k STRING, v DECIMAL(38, 30)) WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
CREATE TABLE out_t (k STRING, s DECIMAL(38, 30), a DECIMAL(38, 30), n BIGINT) WITH ('connector' = 'print', 'print-identifier' = 'out');
INSERT INTO out_t SELECT k, SUM(v), AVG(v), COUNT(*) FROM t GROUP BY k;
