-- A DECIMAL whose scale exceeds its precision says so.
CREATE TABLE t (id BIGINT, amount DECIMAL(2, 5)) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
CREATE TABLE o (id BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO o SELECT id FROM t;
