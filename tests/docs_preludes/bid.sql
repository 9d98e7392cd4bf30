-- A bid stream (Nexmark's shape) with `ts` its event time, and a bounded side
-- table, for examples of docs/sql.md (tests/docs_examples.py). Only planned.
CREATE TABLE bid (
  auction BIGINT, bidder BIGINT, price BIGINT, item STRING, supplier_id BIGINT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '4' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'bid.json', 'format' = 'json');
CREATE TABLE side_input (key BIGINT, `value` STRING)
  WITH ('connector' = 'filesystem', 'path' = 'side.csv', 'format' = 'csv');
