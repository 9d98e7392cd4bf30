-- ALTER TABLE ... RENAME TO
CREATE TABLE t (user_id STRING, name STRING, country STRING) WITH ('connector' = 'filesystem', 'path' = 'data/customers.csv', 'format' = 'csv');
ALTER TABLE t RENAME TO t2;
SELECT user_id FROM t2;
