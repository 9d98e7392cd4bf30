-- A time's precision is 0 to 9, as in Flink: TIME(10) is refused naming the bound.
CREATE TABLE t (id BIGINT, t TIME(10)) WITH ('connector' = 'datagen');
CREATE TABLE o (id BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO o SELECT id FROM t;
