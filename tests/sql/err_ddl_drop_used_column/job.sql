-- a column that a computed column is defined over cannot be dropped
CREATE TABLE t (a INT, b AS a + 1) WITH ('connector' = 'datagen');
ALTER TABLE t DROP a;
