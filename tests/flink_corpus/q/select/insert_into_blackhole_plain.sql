-- Connectors > BlackHole sink (declared columns)
CREATE TABLE bh (order_id BIGINT, amount INT) WITH ('connector' = 'blackhole');
INSERT INTO bh SELECT order_id, amount FROM orders;
