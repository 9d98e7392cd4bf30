-- a table name of four parts
CREATE TABLE t (id INT) WITH ('connector' = 'datagen');
SELECT * FROM a.b.c.t;
