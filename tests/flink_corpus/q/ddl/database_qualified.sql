-- CREATE DATABASE and a table of the same name in two databases, each read by its qualified name (Flink's "Catalogs" page: catalog.database.table)
-- oracle: SELECT c.user_id, c.name FROM customers c JOIN customers d ON c.user_id = d.user_id
CREATE DATABASE crm;
CREATE TABLE crm.customers (user_id STRING, name STRING, country STRING) WITH ('connector' = 'filesystem', 'path' = 'data/customers.csv', 'format' = 'csv');
SELECT c.user_id, c.name FROM default_catalog.crm.customers c JOIN default_database.customers d ON c.user_id = d.user_id;
