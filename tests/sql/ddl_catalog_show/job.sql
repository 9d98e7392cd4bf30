-- weir's one catalog and one database: SHOW CATALOGS / DATABASES and SHOW
-- CURRENT CATALOG / DATABASE name them, USE of them is accepted, and a
-- table is found by its name qualified with them.
SHOW CATALOGS;
SHOW CURRENT CATALOG;
SHOW DATABASES;
SHOW CURRENT DATABASE;
USE CATALOG default_catalog;
USE default_database;
USE default_catalog.default_database;
CREATE TABLE default_catalog.default_database.t (a INT) WITH ('connector' = 'datagen', 'number-of-rows' = '0');
DESCRIBE default_database.t;
