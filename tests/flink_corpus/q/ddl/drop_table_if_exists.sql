-- DROP TABLE IF EXISTS
-- oracle: SELECT user_id FROM customers
DROP TABLE IF EXISTS no_such_table;
SELECT user_id FROM customers;
