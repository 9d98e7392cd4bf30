-- CREATE CATALOG, CREATE DATABASE in it, USE catalog.database, and a table of the default catalog read through its full name
-- oracle: SELECT user_id, country FROM customers
CREATE CATALOG mem WITH ('type' = 'generic_in_memory');
CREATE DATABASE IF NOT EXISTS mem.sales COMMENT 'sales data';
USE mem.sales;
CREATE VIEW v AS SELECT user_id, country FROM default_catalog.default_database.customers;
SELECT * FROM v;
