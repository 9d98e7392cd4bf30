-- Catalogs and databases as Flink has them: CREATE CATALOG (in memory),
-- CREATE DATABASE in the current catalog or another, USE [CATALOG], SHOW
-- of each, and tables of one name in several databases, each read through
-- its qualified name. A view's names resolve where the view was created; a
-- temporary table shadows the permanent one of its path until dropped.
CREATE CATALOG mem COMMENT 'scratch' WITH ('type' = 'generic_in_memory', 'default-database' = 'main');
CREATE DATABASE shop COMMENT 'orders' WITH ('owner' = 'ops');
CREATE DATABASE IF NOT EXISTS shop;
CREATE DATABASE mem.`archive`;
SHOW CATALOGS;
SHOW DATABASES;
SHOW DATABASES FROM mem LIKE 'm%';
SHOW CREATE CATALOG mem;
-- t in three places: default_database, shop and mem.main
CREATE TABLE t (id INT, name STRING) WITH ('connector' = 'filesystem', 'path' = 'a.csv', 'format' = 'csv');
CREATE TABLE shop.t (id INT, name STRING) WITH ('connector' = 'filesystem', 'path' = 'b.csv', 'format' = 'csv');
USE CATALOG mem;
SHOW CURRENT CATALOG;
SHOW CURRENT DATABASE;
CREATE TABLE t (id INT) WITH ('connector' = 'filesystem', 'path' = 'c.csv', 'format' = 'csv');
-- v reads mem.main.t (where it was created) wherever it is used from
CREATE VIEW v AS SELECT id * 100 AS big FROM t;
USE default_catalog.shop;
SHOW TABLES;
SHOW TABLES FROM mem.main;
SHOW VIEWS IN mem.main;
ALTER DATABASE shop SET ('owner' = 'dev');
CREATE TABLE out_shop WITH ('connector' = 'print', 'print-identifier' = 'shop') AS SELECT id, name FROM t;
INSERT INTO default_catalog.shop.out_shop SELECT id, name FROM default_database.t;
CREATE TABLE mem.main.out_v WITH ('connector' = 'print', 'print-identifier' = 'v') AS SELECT big FROM mem.main.v;
-- a temporary table shadows default_database.t until DROP TEMPORARY TABLE
CREATE TEMPORARY TABLE default_database.t (id INT) WITH ('connector' = 'filesystem', 'path' = 'c.csv', 'format' = 'csv');
CREATE TABLE out_tmp WITH ('connector' = 'print', 'print-identifier' = 'tmp') AS SELECT id FROM default_catalog.default_database.t;
DROP TEMPORARY TABLE default_database.t;
CREATE TABLE out_perm WITH ('connector' = 'print', 'print-identifier' = 'perm') AS SELECT id FROM default_database.t;
-- a database with its tables goes with CASCADE
CREATE TABLE mem.archive.old (id INT) WITH ('connector' = 'datagen');
DROP DATABASE mem.archive CASCADE;
DROP DATABASE IF EXISTS mem.archive RESTRICT;
SHOW DATABASES IN mem;
USE CATALOG default_catalog;
DROP DATABASE shop CASCADE;
SHOW DATABASES;
