-- DECIMAL's precision is at most 38 digits, as in Flink.
CREATE TABLE t (id BIGINT, amount DECIMAL(39, 2)) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
CREATE TABLE o (id BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO o SELECT id FROM t;
