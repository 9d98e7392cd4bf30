-- FOR SYSTEM_TIME AS OF must name a time attribute of the left side.
CREATE TABLE orders (order_time TIMESTAMP(3), currency STRING, price INT,
  WATERMARK FOR order_time AS order_time) WITH ('connector' = 'filesystem', 'path' = 'o.csv', 'format' = 'csv');
CREATE TABLE rates (update_time TIMESTAMP(3), currency STRING, rate INT,
  WATERMARK FOR update_time AS update_time, PRIMARY KEY (currency) NOT ENFORCED)
  WITH ('connector' = 'filesystem', 'path' = 'r.csv', 'format' = 'csv');
SELECT * FROM orders AS o JOIN rates FOR SYSTEM_TIME AS OF o.price AS r ON o.currency = r.currency;
