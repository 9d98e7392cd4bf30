-- Connectors > Upsert Kafka sink with a PRIMARY KEY
-- mode: explain
CREATE TABLE uk (user_id STRING, n BIGINT, PRIMARY KEY (user_id) NOT ENFORCED)
  WITH ('connector' = 'upsert-kafka', 'topic' = 'counts', 'properties.bootstrap.servers' = 'localhost:9092', 'key.format' = 'json', 'value.format' = 'json');
INSERT INTO uk SELECT user_id, COUNT(*) FROM orders GROUP BY user_id;
