-- A partitioned filesystem table: weir does not write partition folders yet,
-- and says so instead of writing one unpartitioned folder.
CREATE TABLE src (k STRING, v BIGINT) WITH (
  'connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
CREATE TABLE dst (k STRING, v BIGINT, dt STRING)
PARTITIONED BY (dt)
WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'csv');
INSERT INTO dst SELECT k, v, 'x' FROM src;
