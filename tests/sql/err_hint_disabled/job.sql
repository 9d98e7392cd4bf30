-- With table.dynamic-table-options.enabled false an OPTIONS hint is refused.
SET 'table.dynamic-table-options.enabled' = 'false';
CREATE TABLE t (id INT) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
CREATE TABLE o (id INT) WITH ('connector' = 'blackhole');
INSERT INTO o SELECT id FROM t /*+ OPTIONS('number-of-rows' = '5') */;
