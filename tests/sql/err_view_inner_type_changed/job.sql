-- A view's columns keep the types they had where it was created: an inner
-- view re-created with a column of another type is an error where the
-- outer view is used, naming the view and the column.
CREATE TABLE t (id INT, name STRING) WITH ('connector' = 'datagen');
CREATE VIEW inner_v AS SELECT id, name FROM t;
CREATE VIEW outer_v AS SELECT * FROM inner_v;
DROP VIEW inner_v;
CREATE VIEW inner_v AS SELECT name AS id, name FROM t;
CREATE TABLE o (id STRING, name STRING) WITH ('connector' = 'blackhole');
INSERT INTO o SELECT * FROM outer_v;
