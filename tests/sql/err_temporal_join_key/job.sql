-- An event-time temporal join must equate every PRIMARY KEY column of the
-- versioned table (its versions are kept per key); here it equates another.
CREATE TABLE orders (order_time TIMESTAMP(3), currency STRING, price INT,
  WATERMARK FOR order_time AS order_time) WITH ('connector' = 'filesystem', 'path' = 'o.csv', 'format' = 'csv');
CREATE TABLE rates (update_time TIMESTAMP(3), currency STRING, rate INT,
  WATERMARK FOR update_time AS update_time, PRIMARY KEY (currency) NOT ENFORCED)
  WITH ('connector' = 'filesystem', 'path' = 'r.csv', 'format' = 'csv');
SELECT * FROM orders AS o JOIN rates FOR SYSTEM_TIME AS OF o.order_time AS r ON o.price = r.rate;
