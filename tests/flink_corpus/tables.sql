-- The tables every query of the corpus reads (run.py prepends this file).
-- Small bounded files under data/ and bounded datagen tables, so that each
-- query runs to its end; the oracle in run.py reads the same files.
CREATE TABLE orders (
  order_id BIGINT, user_id STRING, product STRING, amount INT,
  price DECIMAL(10, 2), currency STRING, order_time TIMESTAMP(3),
  WATERMARK FOR order_time AS order_time - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/orders.csv', 'format' = 'csv');
CREATE TABLE bids (
  bid_id INT, item STRING, price INT, supplier STRING, bidtime TIMESTAMP(3),
  WATERMARK FOR bidtime AS bidtime - INTERVAL '1' MINUTE
) WITH ('connector' = 'filesystem', 'path' = 'data/bids.csv', 'format' = 'csv');
CREATE TABLE shipments (
  ship_id BIGINT, order_id BIGINT, ship_time TIMESTAMP(3),
  WATERMARK FOR ship_time AS ship_time - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/shipments.csv', 'format' = 'csv');
CREATE TABLE rates (
  currency STRING, rate DECIMAL(10, 2), rate_time TIMESTAMP(3),
  WATERMARK FOR rate_time AS rate_time,
  PRIMARY KEY (currency) NOT ENFORCED
) WITH ('connector' = 'filesystem', 'path' = 'data/rates.csv', 'format' = 'csv');
CREATE TABLE customers (user_id STRING, name STRING, country STRING)
  WITH ('connector' = 'filesystem', 'path' = 'data/customers.csv', 'format' = 'csv');
CREATE TABLE clicks (
  user_name STRING, url STRING, ctime TIMESTAMP(3),
  WATERMARK FOR ctime AS ctime - INTERVAL '1' MINUTE
) WITH ('connector' = 'filesystem', 'path' = 'data/clicks.csv', 'format' = 'csv');
CREATE TABLE ticker (
  symbol STRING, price INT, tax INT, rowtime TIMESTAMP(3),
  WATERMARK FOR rowtime AS rowtime - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/ticker.csv', 'format' = 'csv');
CREATE TABLE scores (
  player STRING, team STRING, points INT, stime TIMESTAMP(3),
  WATERMARK FOR stime AS stime - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'data/scores.csv', 'format' = 'csv');
CREATE TABLE events (
  id INT, tags ARRAY<STRING>, attrs MAP<STRING, STRING>,
  addr ROW<city STRING, zip STRING>, items ARRAY<ROW<sku STRING, n INT>>,
  payload STRING, ets TIMESTAMP(3),
  WATERMARK FOR ets AS ets
) WITH ('connector' = 'filesystem', 'path' = 'data/events.json', 'format' = 'json');
CREATE TABLE gen (
  id BIGINT, v INT, gts TIMESTAMP(3),
  WATERMARK FOR gts AS gts
) WITH ('connector' = 'datagen', 'number-of-rows' = '100',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '100',
  'fields.v.min' = '0', 'fields.v.max' = '9',
  'fields.gts.kind' = 'sequence', 'fields.gts.start' = '2024-01-01 00:00:00',
  'fields.gts.end' = '2024-01-01 00:00:00.099');
CREATE VIEW orders_pt AS SELECT *, PROCTIME() AS pt FROM orders;
