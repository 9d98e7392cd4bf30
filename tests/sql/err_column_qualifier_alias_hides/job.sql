-- an alias hides the table's name: with FROM t AS x, t.c names nothing
CREATE TABLE t (id INT, name STRING) WITH ('connector' = 'datagen');
SELECT x.id, t.name FROM t AS x;
