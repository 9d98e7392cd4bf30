-- A filter after the deduplication (rate > 100 beside rownum = 1) is not
-- placed: refused, pointing at the condition.
CREATE TABLE RatesHistory (currency_time TIMESTAMP(3), currency STRING, rate INT,
    WATERMARK FOR currency_time AS currency_time - INTERVAL '15' SECOND)
  WITH ('connector' = 'filesystem', 'path' = 'rates.csv', 'format' = 'csv');
CREATE TABLE orders (order_id STRING, order_time TIMESTAMP(3), currency STRING, amount INT,
    WATERMARK FOR order_time AS order_time - INTERVAL '15' SECOND)
  WITH ('connector' = 'filesystem', 'path' = 'orders.csv', 'format' = 'csv');
CREATE VIEW high_rates AS
SELECT currency, rate, currency_time FROM (
    SELECT *, ROW_NUMBER() OVER (PARTITION BY currency ORDER BY currency_time DESC) AS rownum
    FROM RatesHistory)
WHERE rownum = 1 AND rate > 100;
SELECT o.order_id, r.rate FROM orders AS o
JOIN high_rates FOR SYSTEM_TIME AS OF o.order_time AS r ON o.currency = r.currency;
