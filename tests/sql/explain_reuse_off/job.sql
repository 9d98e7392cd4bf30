-- explain_reuse with sub-plan reuse off: two sources, two aggregations.
SET 'table.optimizer.reuse-sub-plan-enabled' = 'false';
CREATE TABLE bid (auction BIGINT, price BIGINT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = 'bids.csv', 'format' = 'csv');
CREATE VIEW counts AS
  SELECT auction, COUNT(*) AS num, window_start, window_end
  FROM TABLE(HOP(TABLE bid, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '4' SECOND))
  GROUP BY auction, window_start, window_end;
EXPLAIN SELECT * FROM counts UNION ALL SELECT auction, num, window_start, window_end FROM counts;
