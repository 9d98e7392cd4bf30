-- CREATE TABLE: Kafka METADATA columns (timestamp, partition, offset)
-- mode: explain
CREATE TABLE kin (user_id STRING, amount INT, event_time TIMESTAMP_LTZ(3) METADATA FROM 'timestamp', `partition` BIGINT METADATA VIRTUAL, `offset` BIGINT METADATA VIRTUAL,
  WATERMARK FOR event_time AS event_time - INTERVAL '5' SECOND)
  WITH ('connector' = 'kafka', 'topic' = 'orders', 'properties.bootstrap.servers' = 'localhost:9092', 'properties.group.id' = 'g', 'scan.startup.mode' = 'earliest-offset', 'format' = 'json');
SELECT user_id, `partition`, `offset` FROM kin;
