-- CREATE TABLE with COMMENT on columns and on the table
-- oracle: SELECT user_id FROM customers
CREATE TABLE cc (user_id STRING COMMENT 'the key', name STRING, country STRING COMMENT 'ISO code') COMMENT 'people'
  WITH ('connector' = 'filesystem', 'path' = 'data/customers.csv', 'format' = 'csv');
SELECT user_id FROM cc;
