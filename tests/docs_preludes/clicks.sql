-- A clicks table that examples of docs/connectors.md read (tests/docs_examples.py).
-- Only planned.
CREATE TABLE clicks (
  user_id STRING, url STRING, ts_ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ts_ms, 3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'clicks.json', 'format' = 'json');
