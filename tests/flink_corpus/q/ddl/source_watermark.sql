-- CREATE TABLE: WATERMARK FOR ts AS SOURCE_WATERMARK()
-- mode: explain
CREATE TABLE kin (user_id STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS SOURCE_WATERMARK())
  WITH ('connector' = 'kafka', 'topic' = 't', 'properties.bootstrap.servers' = 'localhost:9092', 'format' = 'json');
SELECT * FROM kin;
