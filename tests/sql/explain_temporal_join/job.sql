-- EXPLAIN of the currency-rates temporal join: TemporalJoin, keyed by the
-- versioned table's primary key on both inputs.
CREATE TABLE orders (
    order_id    STRING,
    order_time  TIMESTAMP(3),
    price       DECIMAL(10, 2),
    currency    STRING,
    WATERMARK FOR order_time AS order_time - INTERVAL '15' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'orders.csv', 'format' = 'csv');

CREATE TABLE currency_rates (
    update_time TIMESTAMP(3),
    currency STRING,
    conversion_rate DECIMAL(10, 2),
    WATERMARK FOR update_time AS update_time - INTERVAL '15' SECOND,
    PRIMARY KEY(currency) NOT ENFORCED
) WITH ('connector' = 'filesystem', 'path' = 'rates.csv', 'format' = 'csv');

EXPLAIN SELECT
     order_id,
     price,
     orders.currency,
     conversion_rate,
     order_time
FROM orders
LEFT JOIN currency_rates FOR SYSTEM_TIME AS OF orders.order_time
ON orders.currency = currency_rates.currency;
