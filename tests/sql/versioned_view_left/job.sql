-- A versioned view over an out-of-order rate stream, joined with LEFT JOIN:
-- an order without a version valid at its time keeps its row, rate NULL.
-- The view filters the rows it deduplicates (rate > 0 in the inner query,
-- before ROW_NUMBER), so a filtered row is no version at all.
-- Rates (watermark delay 10 min, W = max time seen - 10 min, a rate with
-- time < W is late and dropped), in file order:
--   09:00 Euro 114, 09:00 Yen 1, 10:45 Euro 116 (W = 10:35),
--   10:40 Euro 115  out of order, on time (>= 10:35): Euro 115 from 10:40
--   10:20 Euro 999  late (< 10:35): dropped
--   11:00 Euro -1   filtered out by rate > 0
--   11:15 Euro 119, 11:15 Yen 2, 11:15 Yen 3 (same key and time: the
--   later row wins, Yen 3 from 11:15)
-- Euro versions: 09:00 114, 10:40 115, 10:45 116, 11:15 119.
-- Orders (delay 15 s; in file order o_9 11:04 comes after o_8 11:20 and
-- o_10 10:00 after that, both later than 15 s: late and dropped):
--   o_0 08:59 Euro  before any Euro version -> NULL
--   o_1 10:30 Euro  09:00 (999 was late)    -> 114
--   o_2 10:42 Euro  10:40 (out of order)    -> 115
--   o_3 10:46 Euro  10:45                   -> 116
--   o_4 11:05 Euro  10:45 (-1 filtered)     -> 116
--   o_5 11:15 Euro  11:15                   -> 119
--   o_6 11:14:59.999 Yen 09:00              -> 1
--   o_7 11:20 Yen   11:15, the later row    -> 3
--   o_8 11:20 Pounds no versions            -> NULL
--   o_9, o_10 late                          -> no row
CREATE TABLE RatesHistory (
    currency_time TIMESTAMP(3),
    currency STRING,
    rate INT,
    WATERMARK FOR currency_time AS currency_time - INTERVAL '10' MINUTE
) WITH ('connector' = 'filesystem', 'path' = 'rates.csv', 'format' = 'csv');

CREATE TABLE orders (
    order_id STRING,
    order_time TIMESTAMP(3),
    currency STRING,
    WATERMARK FOR order_time AS order_time - INTERVAL '15' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'orders.csv', 'format' = 'csv');

CREATE VIEW versioned_rates (cur, r, valid_from) AS
SELECT currency, rate, currency_time
  FROM (
      SELECT currency_time, currency, rate,
      ROW_NUMBER() OVER (PARTITION BY currency ORDER BY currency_time DESC) AS rn
      FROM RatesHistory
      WHERE rate > 0)
WHERE rn = 1;

SELECT o.order_id, o.order_time, o.currency, v.r, v.valid_from
FROM orders AS o
LEFT JOIN versioned_rates FOR SYSTEM_TIME AS OF o.order_time AS v
ON o.currency = v.cur;
