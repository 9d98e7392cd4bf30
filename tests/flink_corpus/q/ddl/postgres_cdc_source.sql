-- Connectors > postgres-cdc source
-- mode: explain
CREATE TABLE pgc (id INT, name STRING, PRIMARY KEY (id) NOT ENFORCED)
  WITH ('connector' = 'postgres-cdc', 'hostname' = 'localhost', 'port' = '5432', 'username' = 'u', 'password' = 'p', 'database-name' = 'db', 'schema-name' = 'public', 'table-name' = 't', 'slot.name' = 's');
SELECT COUNT(*) FROM pgc;
