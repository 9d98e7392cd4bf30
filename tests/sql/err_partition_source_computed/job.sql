-- A partition column of a source must be one of its physical columns: a
-- computed column cannot come from a folder name.
CREATE TABLE src (k STRING, v BIGINT, dt AS UPPER(k))
PARTITIONED BY (dt)
WITH ('connector' = 'filesystem', 'path' = 'in', 'format' = 'csv');
SELECT k FROM src;
