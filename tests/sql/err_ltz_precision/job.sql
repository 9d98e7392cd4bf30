-- A TIMESTAMP_LTZ's precision is 0 to 9, as in Flink (TIMESTAMP_LTZ(9) is
-- taken): TIMESTAMP(10) WITH LOCAL TIME ZONE is refused naming the bound.
CREATE TABLE t (id BIGINT, a TIMESTAMP_LTZ(9), b TIMESTAMP(10) WITH LOCAL TIME ZONE) WITH ('connector' = 'datagen');
CREATE TABLE o (id BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO o SELECT id FROM t;
