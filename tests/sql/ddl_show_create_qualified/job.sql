-- SHOW CREATE TABLE prints the table's name qualified as far as it is not
-- in the current catalog and database, so that the statement re-creates
-- that object, not one of the current database. SHOW CREATE VIEW prints
-- the view's name and the names its query reads fully qualified, as Flink
-- does (catalog.database.name, as the query resolved them where it was
-- written).
CREATE DATABASE db1;
CREATE TABLE t (id INT) WITH ('connector' = 'datagen');
USE db1;
CREATE TABLE t (id INT, name STRING) WITH ('connector' = 'datagen');
CREATE VIEW v AS SELECT name FROM db1.t;
SHOW CREATE TABLE t;
USE default_database;
SHOW CREATE VIEW db1.v;
SHOW CREATE TABLE db1.t;
SHOW CREATE TABLE t;
