-- Connectors > Kafka source and sink with json format
-- mode: explain
CREATE TABLE kin (user_id STRING, amount INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
  WITH ('connector' = 'kafka', 'topic' = 'in', 'properties.bootstrap.servers' = 'localhost:9092', 'properties.group.id' = 'g', 'scan.startup.mode' = 'earliest-offset', 'format' = 'json');
CREATE TABLE kout (user_id STRING, total BIGINT, ws TIMESTAMP(3))
  WITH ('connector' = 'kafka', 'topic' = 'out', 'properties.bootstrap.servers' = 'localhost:9092', 'format' = 'json');
INSERT INTO kout SELECT user_id, SUM(amount), window_start FROM TABLE(TUMBLE(TABLE kin, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY user_id, window_start, window_end;
