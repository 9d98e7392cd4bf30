-- Flink's documentation's ticker table (docs/sql.md, MATCH_RECOGNIZE;
-- tests/docs_examples.py). Only planned.
CREATE TABLE ticker (
  symbol STRING, price BIGINT, tax BIGINT, rowtime TIMESTAMP(3),
  WATERMARK FOR rowtime AS rowtime - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'ticker.csv', 'format' = 'csv');
