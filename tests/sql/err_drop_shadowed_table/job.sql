-- a permanent table shadowed by a temporary one of the same path cannot be
-- dropped until the temporary one is (as Flink)
CREATE TABLE t (id INT) WITH ('connector' = 'datagen');
CREATE TEMPORARY TABLE t (id INT, x INT) WITH ('connector' = 'datagen');
DROP TABLE t;
