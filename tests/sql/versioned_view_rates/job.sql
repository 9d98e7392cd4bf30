-- A versioned view (Flink's "Versioned Tables" page): RatesHistory is an
-- append-only stream of rates; the view keeps the last row per currency
-- ordered by currency_time, so it is a versioned table keyed by currency
-- with currency_time as its time attribute, and each order joins the rate
-- valid at its time. Rates as on that page (US Dollar 102, Euro 114, Yen 1
-- from 09:00; Euro 116 from 10:45, 119 from 11:15; Pounds 108 from
-- 11:49). Worked by hand (INNER: an order without a version is dropped):
--   o_0 08:59 Euro       before any Euro version     -> dropped
--   o_1 10:15 Euro       09:00 version               -> 114
--   o_2 10:30 US Dollar  09:00 version               -> 102
--   o_3 10:32 Yen        09:00 version               -> 1
--   o_4 10:52 Euro       10:45 version               -> 116
--   o_5 11:04 US Dollar  09:00 version               -> 102
--   o_6 11:15 Euro       11:15 version (valid from then) -> 119
--   o_7 11:30 Pounds     before 11:49                -> dropped
--   o_8 12:00 Pounds     11:49 version               -> 108
CREATE TABLE RatesHistory (
    currency_time TIMESTAMP(3),
    currency STRING,
    rate INT,
    WATERMARK FOR currency_time AS currency_time - INTERVAL '15' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'rates.csv', 'format' = 'csv');

CREATE TABLE orders (
    order_id STRING,
    order_time TIMESTAMP(3),
    currency STRING,
    amount INT,
    WATERMARK FOR order_time AS order_time - INTERVAL '15' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'orders.csv', 'format' = 'csv');

CREATE VIEW versioned_rates AS
SELECT currency, rate, currency_time
  FROM (
      SELECT *,
      ROW_NUMBER() OVER (PARTITION BY currency
         ORDER BY currency_time DESC) AS rownum
      FROM RatesHistory)
WHERE rownum = 1;

SELECT o.order_id, o.order_time, o.amount, r.rate, o.amount * r.rate AS converted
FROM orders AS o
JOIN versioned_rates FOR SYSTEM_TIME AS OF o.order_time AS r
ON o.currency = r.currency;
