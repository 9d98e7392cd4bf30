-- CREATE TABLE: computed column from physical columns
-- oracle: SELECT order_id, amount * price FROM orders
CREATE TABLE o2 (order_id BIGINT, user_id STRING, product STRING, amount INT, price DECIMAL(10, 2), currency STRING, order_time TIMESTAMP(3),
  total AS amount * price) WITH ('connector' = 'filesystem', 'path' = 'data/orders.csv', 'format' = 'csv');
SELECT order_id, total FROM o2;
