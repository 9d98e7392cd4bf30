-- CREATE TABLE: METADATA column of the filesystem connector (file.path)
-- oracle: SELECT user_id, 'data/customers.csv' FROM customers
CREATE TABLE cm (user_id STRING, name STRING, country STRING, fpath STRING NOT NULL METADATA FROM 'file.path' VIRTUAL)
  WITH ('connector' = 'filesystem', 'path' = 'data/customers.csv', 'format' = 'csv');
-- file.path is absolute: the part from the data folder on is the same wherever the query runs
SELECT user_id, SUBSTRING(fpath FROM POSITION('/data/' IN fpath) + 1) FROM cm;
