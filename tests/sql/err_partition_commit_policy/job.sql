-- Partition commit to a metastore: weir has no metastore.
CREATE TABLE src (k STRING, v BIGINT) WITH (
  'connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
CREATE TABLE dst (k STRING, v BIGINT, dt STRING)
PARTITIONED BY (dt)
WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'csv',
      'sink.partition-commit.policy.kind' = 'metastore,success-file');
INSERT INTO dst SELECT k, v, 'x' FROM src;
