-- an alias hides the table's path too: db.x.c and db.t.c name nothing
CREATE TABLE t (id INT, name STRING) WITH ('connector' = 'datagen');
SELECT x.id FROM t AS x WHERE default_database.x.name <> 'a';
