-- The tables around docs/postgres.md's examples: a stream of orders and the
-- sink of the totals (tests/docs_examples.py). Only planned.
CREATE TABLE orders_stream (id BIGINT, customer_id BIGINT, proc_time AS PROCTIME())
  WITH ('connector' = 'filesystem', 'path' = 'orders.json', 'format' = 'json');
CREATE TABLE totals (customer STRING, n BIGINT, total DECIMAL(38, 2),
                     PRIMARY KEY (customer) NOT ENFORCED) WITH ('connector' = 'print');
