-- The event-time temporal join of temporal_join_rates (rates worked by
-- hand there), with the versioned table in another catalog's database and
-- named by its qualified name; a table of the same name in the current
-- database (every rate 9.99) must not be the one read.
CREATE CATALOG mem WITH ('type' = 'generic_in_memory');
CREATE DATABASE mem.fx;
CREATE TABLE currency_rates (update_time TIMESTAMP(3), currency STRING, conversion_rate DECIMAL(10, 2),
    WATERMARK FOR update_time AS update_time - INTERVAL '15' SECOND, PRIMARY KEY(currency) NOT ENFORCED)
  WITH ('connector' = 'filesystem', 'path' = 'decoy.csv', 'format' = 'csv');
CREATE TABLE orders (
    order_id    STRING,
    order_time  TIMESTAMP(3),
    price       DECIMAL(10, 2),
    currency    STRING,
    WATERMARK FOR order_time AS order_time - INTERVAL '15' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'orders.csv', 'format' = 'csv');

CREATE TABLE mem.fx.currency_rates (
    update_time TIMESTAMP(3),
    currency STRING,
    conversion_rate DECIMAL(10, 2),
    WATERMARK FOR update_time AS update_time - INTERVAL '15' SECOND,
    PRIMARY KEY(currency) NOT ENFORCED
) WITH ('connector' = 'filesystem', 'path' = 'rates.csv', 'format' = 'csv');

SELECT
     order_id,
     price,
     orders.currency,
     conversion_rate,
     order_time
FROM orders
LEFT JOIN mem.fx.currency_rates FOR SYSTEM_TIME AS OF orders.order_time
ON orders.currency = currency_rates.currency;
