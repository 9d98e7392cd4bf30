-- ALTER TABLE ... MODIFY / DROP column
CREATE TABLE t (user_id STRING, name STRING, country STRING, extra AS UPPER(name)) WITH ('connector' = 'filesystem', 'path' = 'data/customers.csv', 'format' = 'csv');
ALTER TABLE t DROP extra;
SELECT * FROM t;
