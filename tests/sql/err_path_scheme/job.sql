-- Only local paths: a path or file:///path.
CREATE TABLE src (k STRING, v BIGINT) WITH (
  'connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
CREATE TABLE dst (k STRING, v BIGINT) WITH (
  'connector' = 'filesystem', 'path' = 'hdfs://nn/out', 'format' = 'csv');
INSERT INTO dst SELECT k, v FROM src;
