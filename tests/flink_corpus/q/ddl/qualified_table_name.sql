-- Catalog-qualified table name default_catalog.default_database.t
-- oracle: SELECT user_id FROM customers
SELECT user_id FROM default_catalog.default_database.customers;
