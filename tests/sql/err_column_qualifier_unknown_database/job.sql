-- db.t.c must name the FROM item's table: a database it is not in is an
-- unknown qualifier, at the column reference
CREATE TABLE t (id INT, name STRING) WITH ('connector' = 'datagen');
SELECT id, nodb.t.name FROM t;
