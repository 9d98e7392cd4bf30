-- ALTER TABLE ... ADD a computed column
CREATE TABLE t (user_id STRING, name STRING, country STRING) WITH ('connector' = 'filesystem', 'path' = 'data/customers.csv', 'format' = 'csv');
ALTER TABLE t ADD upper_name AS UPPER(name);
SELECT upper_name FROM t;
