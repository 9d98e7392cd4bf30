-- Tables that examples of docs/sql.md and docs/functions.md read without
-- defining them (tests/docs_examples.py: `<!-- docs-test: prelude orders -->`).
-- Only planned: the files need not exist.
CREATE TABLE orders (
  id BIGINT, oid BIGINT, order_id BIGINT, cid BIGINT, customer_id BIGINT, customer STRING,
  product STRING, category STRING, item STRING, currency STRING,
  amount DECIMAL(10, 2), price DECIMAL(10, 2),
  order_time TIMESTAMP(3), proc_time AS PROCTIME(),
  WATERMARK FOR order_time AS order_time - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'orders.json', 'format' = 'json');
CREATE TABLE customers (id BIGINT, cid BIGINT, name STRING, country STRING)
  WITH ('connector' = 'filesystem', 'path' = 'customers.json', 'format' = 'json');
CREATE TABLE regions (country STRING, open BOOLEAN)
  WITH ('connector' = 'filesystem', 'path' = 'regions.json', 'format' = 'json');
CREATE TABLE RatesHistory (
  currency STRING, rate DECIMAL(10, 4), currency_time TIMESTAMP(3),
  WATERMARK FOR currency_time AS currency_time - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'rates.json', 'format' = 'json');
