-- A function call's catalog and database must exist (functions are the
-- same in every database).
CREATE DATABASE db1;
CREATE TABLE t (id INT, name STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
SELECT db1.UPPER(name), default_catalog.db1.LOWER(name), default_catalog.nodb.UPPER(name) FROM t;
