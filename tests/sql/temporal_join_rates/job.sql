-- The event-time temporal join of Flink's "Joins" page (orders LEFT JOIN
-- currency_rates FOR SYSTEM_TIME AS OF orders.order_time), the query text
-- as Flink's page writes it, over the versioned table of Flink's
-- "Versioned Tables" page (Yen 102, Euro 114, USD 1 from 09:00; Euro 116
-- from 10:45, 119 from 11:15; Pounds 108 from 11:49). Each order gets the
-- rate valid at its time: the version with the latest update_time <= the
-- order's time. Worked by hand:
--   o_000 08:59     Euro    before any Euro version        -> NULL
--   o_001 10:15     Euro    09:00 version                  -> 1.14
--   o_010 10:45:05  Euro    10:45 version                  -> 1.16
--   o_009 10:44:59.999 Euro still the 09:00 version; it comes after
--                           o_010, within the 15 s watermark delay,
--                           so it is on time               -> 1.14
--   o_004 10:52     Euro    10:45 version                  -> 1.16
--   o_006 11:15     Euro    11:15 version (valid from 11:15) -> 1.19
--   o_002, o_005    USD                                    -> 0.01
--   o_003 10:32     Yen                                    -> 1.02
--   o_007 11:30     Pounds  before 11:49                   -> NULL
--   o_008 12:00     Pounds  11:49 version                  -> 1.08
-- (Rates are written as DECIMAL(10, 2), the page's 114 as 1.14.)
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

SELECT
     order_id,
     price,
     orders.currency,
     conversion_rate,
     order_time
FROM orders
LEFT JOIN currency_rates FOR SYSTEM_TIME AS OF orders.order_time
ON orders.currency = currency_rates.currency;
