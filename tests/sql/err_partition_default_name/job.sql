-- A partition default name is one folder under the table's path: a '/'
-- in it would write outside the table.
CREATE TABLE src (k STRING, v BIGINT) WITH (
  'connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
CREATE TABLE dst (k STRING, v BIGINT, dt STRING)
PARTITIONED BY (dt)
WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'csv',
      'partition.default-name' = '../../../evil');
INSERT INTO dst SELECT k, v, CAST(NULL AS STRING) FROM src;
