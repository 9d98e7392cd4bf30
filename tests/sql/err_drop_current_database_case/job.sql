-- USE CATALOG makes the catalog's default database current under its own
-- name, whatever case 'default-database' gives it: it cannot be dropped.
CREATE CATALOG c WITH ('type' = 'generic_in_memory');
CREATE DATABASE c.db1;
ALTER CATALOG c SET ('default-database' = 'DB1');
USE CATALOG c;
DROP DATABASE db1;
