-- SHOW CREATE TABLE and SHOW CREATE VIEW print the object's catalog,
-- database and name, as Flink does, whatever is current: the table of
-- db1 and the one of default_database of the same name are told apart.
-- SHOW CREATE VIEW prints the names its query reads fully qualified too
-- (as the query resolved them where it was written).
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
