-- Connectors > JDBC sink in upsert mode
-- mode: explain
CREATE TABLE pg (user_id STRING, n BIGINT, PRIMARY KEY (user_id) NOT ENFORCED)
  WITH ('connector' = 'jdbc', 'url' = 'jdbc:postgresql://localhost:5432/db', 'table-name' = 'counts', 'username' = 'u', 'password' = 'p');
INSERT INTO pg SELECT user_id, COUNT(*) FROM orders GROUP BY user_id;
