-- The history part of a hybrid table must end: a monitored folder never
-- does, so the live part would never start.
CREATE TABLE src (k STRING, v BIGINT, ts_ms BIGINT)
WITH ('connector' = 'hybrid', 'format' = 'json',
  'history.connector' = 'filesystem', 'history.path' = 'in.json',
  'history.source.monitor-interval' = '1 s',
  'live.connector' = 'kafka', 'topic' = 't', 'properties.bootstrap.servers' = 'localhost:1');
SELECT k FROM src;
