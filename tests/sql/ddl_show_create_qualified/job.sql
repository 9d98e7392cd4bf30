-- SHOW CREATE TABLE / VIEW print the object's name qualified as far as it
-- is not in the current catalog and database, so that the statement
-- re-creates that object, not one of the current database. (The view's
-- query names its table qualified: a bare name in it is printed as written.)
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
