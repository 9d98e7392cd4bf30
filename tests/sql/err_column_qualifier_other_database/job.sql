-- FROM db1.t reads db1's t: default_database.t.c (the current database's
-- t, not in the FROM) names nothing, nor does a four-part qualifier
CREATE DATABASE db1;
CREATE TABLE t (id INT) WITH ('connector' = 'datagen');
CREATE TABLE db1.t (id INT, name STRING) WITH ('connector' = 'datagen');
SELECT db1.t.id, default_catalog.db1.t.name, default_database.t.id FROM db1.t;
