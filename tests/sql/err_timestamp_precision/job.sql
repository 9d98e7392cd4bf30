-- A timestamp's precision is 0 to 9, refused at plan time.
CREATE TABLE t (id BIGINT, ts TIMESTAMP(99)) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
CREATE TABLE o (id BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO o SELECT id FROM t;
