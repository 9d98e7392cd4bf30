-- The built-in catalog has no CREATE CATALOG statement, also once ALTER
-- CATALOG gave it options (a statement without 'type' would not run).
ALTER CATALOG default_catalog SET ('default-database' = 'db1');
SHOW CREATE CATALOG default_catalog;
