-- Reading a partitioned filesystem table: weir writes partition folders
-- but does not read them back as partitions yet, and says so.
CREATE TABLE src (k STRING, v BIGINT, dt STRING)
PARTITIONED BY (dt)
WITH ('connector' = 'filesystem', 'path' = 'in', 'format' = 'csv');
CREATE TABLE dst (k STRING, v BIGINT) WITH (
  'connector' = 'filesystem', 'path' = 'out', 'format' = 'csv');
INSERT INTO dst SELECT k, v FROM src;
