-- CREATE TEMPORARY TABLE
-- oracle: SELECT user_id FROM customers
CREATE TEMPORARY TABLE tmp_c (user_id STRING, name STRING, country STRING) WITH ('connector' = 'filesystem', 'path' = 'data/customers.csv', 'format' = 'csv');
SELECT user_id FROM tmp_c;
