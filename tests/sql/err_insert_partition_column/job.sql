-- PARTITION (...) names partition columns only (Flink: "Static partition
-- column a should be in the partition keys list").
CREATE TABLE src (a STRING, h INT, n INT) WITH ('connector' = 'filesystem', 'path' = 'in.json', 'format' = 'json');
CREATE TABLE out1 (a STRING, dt STRING, n INT) PARTITIONED BY (dt)
  WITH ('connector' = 'filesystem', 'path' = 'out1', 'format' = 'json');
INSERT INTO out1 PARTITION (a = 'x') SELECT CAST(h AS STRING), n FROM src;
