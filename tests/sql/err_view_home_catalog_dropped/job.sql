-- A view's names resolve in the catalog it was created in: once that
-- catalog is dropped, the error names it.
CREATE CATALOG c WITH ('type' = 'generic_in_memory');
USE CATALOG c;
CREATE TABLE t (id INT) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
CREATE VIEW default_catalog.default_database.v AS SELECT id FROM t;
USE CATALOG default_catalog;
DROP CATALOG c;
SELECT * FROM v;
