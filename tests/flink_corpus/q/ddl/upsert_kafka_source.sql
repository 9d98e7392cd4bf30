-- Connectors > Upsert Kafka source (a changelog read by key)
-- mode: explain
CREATE TABLE uk (user_id STRING, n BIGINT, PRIMARY KEY (user_id) NOT ENFORCED)
  WITH ('connector' = 'upsert-kafka', 'topic' = 'counts', 'properties.bootstrap.servers' = 'localhost:9092', 'key.format' = 'json', 'value.format' = 'json');
SELECT SUM(n) FROM uk;
