-- A partition folder names a scalar value: partitioning a sink by an
-- ARRAY, MAP, ROW or MULTISET column is refused, as reading one is. Its
-- text (cut at 127 bytes) put different arrays into one folder, and the
-- table could not be read back.
CREATE TABLE src (k STRING, v BIGINT) WITH (
  'connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
CREATE TABLE dst (k STRING, v BIGINT, tags ARRAY<STRING>)
PARTITIONED BY (tags)
WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'json');
INSERT INTO dst SELECT k, v, ARRAY[k] FROM src;
