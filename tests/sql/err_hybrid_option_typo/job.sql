-- A hybrid table's option with a misspelled part name is refused at its
-- position, with the closest part option (it would otherwise go to both
-- parts as a shared option, and each would refuse it without the hint).
CREATE TABLE src (k STRING, v BIGINT, ts_ms BIGINT)
WITH ('connector' = 'hybrid', 'format' = 'json',
  'history.connector' = 'filesystem', 'histroy.path' = 'in.json',
  'live.connector' = 'kafka', 'topic' = 't', 'properties.bootstrap.servers' = 'localhost:1');
SELECT k FROM src;
