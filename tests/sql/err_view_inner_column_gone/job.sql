-- A view reads the columns its inner view had where the outer view was
-- created: the inner view dropped and re-created without one of them
-- makes the outer view fail where it is used, naming the view and the
-- column (Flink's expanded query names the column, which is not found).
CREATE TABLE t (id INT, name STRING) WITH ('connector' = 'datagen');
CREATE VIEW inner_v AS SELECT id, name FROM t;
CREATE VIEW outer_v AS SELECT * FROM inner_v;
DROP VIEW inner_v;
CREATE VIEW inner_v AS SELECT id FROM t;
CREATE TABLE o (id INT, name STRING) WITH ('connector' = 'blackhole');
INSERT INTO o SELECT * FROM outer_v;
