-- CREATE TABLE IF NOT EXISTS of an existing table keeps the first
-- oracle: SELECT user_id FROM customers
CREATE TABLE IF NOT EXISTS customers (x INT) WITH ('connector' = 'datagen');
SELECT user_id FROM customers;
