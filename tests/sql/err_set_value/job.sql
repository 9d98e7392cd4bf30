SET 'parallelism.default' = '2';
SET 'table.optimizer.reuse-source-enabled' = 'maybe';
CREATE TABLE t (s STRING, n INT) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
CREATE TABLE o (s STRING, n INT) WITH ('connector' = 'blackhole');
INSERT INTO o SELECT s, n FROM t;
