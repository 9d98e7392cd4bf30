-- Flink's documentation's bid table, its event time `bidtime`, for examples of
-- docs/sql.md (tests/docs_examples.py). Only planned.
CREATE TABLE bid (
  item STRING, price DECIMAL(10, 2), supplier_id STRING, bidtime TIMESTAMP(3),
  WATERMARK FOR bidtime AS bidtime - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'bid.json', 'format' = 'json');
