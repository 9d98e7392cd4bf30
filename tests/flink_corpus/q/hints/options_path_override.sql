-- Queries > Hints: OPTIONS overriding a connector option
-- oracle: SELECT user_id FROM customers
CREATE TABLE cust_elsewhere (user_id STRING, name STRING, country STRING) WITH ('connector' = 'filesystem', 'path' = 'data/no-such-file.csv', 'format' = 'csv');
SELECT user_id FROM cust_elsewhere /*+ OPTIONS('path' = 'data/customers.csv') */;
