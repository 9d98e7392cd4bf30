-- CREATE TABLE: METADATA column of the filesystem connector (file.path)
CREATE TABLE cm (user_id STRING, name STRING, country STRING, fpath STRING NOT NULL METADATA FROM 'file.path' VIRTUAL)
  WITH ('connector' = 'filesystem', 'path' = 'data/customers.csv', 'format' = 'csv');
SELECT user_id, fpath FROM cm;
