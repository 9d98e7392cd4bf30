-- SHOW CREATE VIEW prints, as Flink does, the view's name and every table
-- and view its query reads by catalog, database and name: those its names
-- reached where the view was created (or last changed by ALTER VIEW AS),
-- whatever is current where it is shown. A WITH query's name stays as
-- written, the tables its body reads are qualified too; aliases, column
-- names and the rest of the query print as written.
CREATE CATALOG c2 WITH ('type' = 'generic_in_memory');
CREATE DATABASE db1;
CREATE TABLE t (id INT, name STRING) WITH ('connector' = 'datagen');
CREATE TABLE db1.u (id INT, y INT) WITH ('connector' = 'datagen');
CREATE TABLE c2.`default`.`my t` (id INT) WITH ('connector' = 'datagen');
CREATE VIEW v1 AS SELECT * FROM t;
USE db1;
CREATE TEMPORARY VIEW w (a, b) AS
  WITH q AS (SELECT id, y FROM u)
  SELECT q.id, x.name FROM q JOIN default_database.v1 AS x ON q.id = x.id;
CREATE VIEW far AS SELECT id FROM c2.`default`.`my t` UNION ALL SELECT id FROM U;
SHOW CREATE VIEW w;
USE CATALOG c2;
SHOW CREATE VIEW default_catalog.db1.far;
SHOW CREATE VIEW default_catalog.default_database.v1;
ALTER VIEW default_catalog.default_database.v1 AS SELECT id FROM `my t`;
SHOW CREATE VIEW default_catalog.default_database.v1;
