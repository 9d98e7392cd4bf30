-- The fractional precision of a day-time interval is 0 to 9, as in Flink
-- (SECOND(3, 9) is taken): SECOND(3, 10) is refused naming the bound.
CREATE TABLE t (id BIGINT, a INTERVAL SECOND(3, 9), b INTERVAL SECOND(3, 10)) WITH ('connector' = 'datagen');
CREATE TABLE o (id BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO o SELECT id FROM t;
