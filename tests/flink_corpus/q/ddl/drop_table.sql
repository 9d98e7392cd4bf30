-- DROP TABLE of a declared table, then recreate it
-- oracle: SELECT user_id FROM customers
CREATE TABLE t (a INT) WITH ('connector' = 'datagen');
DROP TABLE t;
CREATE TABLE t (user_id STRING, name STRING, country STRING) WITH ('connector' = 'filesystem', 'path' = 'data/customers.csv', 'format' = 'csv');
SELECT user_id FROM t;
