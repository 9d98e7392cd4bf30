-- A static partition column has its value from PARTITION (...): listing
-- it too is refused.
CREATE TABLE src (a STRING, n INT) WITH ('connector' = 'filesystem', 'path' = 'in.json', 'format' = 'json');
CREATE TABLE f (a STRING, dt STRING) PARTITIONED BY (dt)
  WITH ('connector' = 'filesystem', 'path' = 'f', 'format' = 'json');
INSERT INTO f PARTITION (dt = '2024-01-01') (a, dt) SELECT a, a FROM src;
