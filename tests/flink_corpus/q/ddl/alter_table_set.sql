-- ALTER TABLE ... SET ('option' = 'value')
-- oracle: SELECT user_id FROM customers
CREATE TABLE t (user_id STRING, name STRING, country STRING) WITH ('connector' = 'filesystem', 'path' = 'data/none.csv', 'format' = 'csv');
ALTER TABLE t SET ('path' = 'data/customers.csv');
SELECT user_id FROM t;
