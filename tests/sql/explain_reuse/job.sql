-- Sub-plan reuse in EXPLAIN: the view's source, pre-projection and HOP
-- aggregation appear once; the second use of each is a Reused[n] line
-- naming the node it reads, and the job graph fans that node out. With
-- table.optimizer.reuse-sub-plan-enabled off, everything is planned twice;
-- with only table.optimizer.reuse-source-enabled off, the source is
-- (explain_reuse_off, explain_reuse_source_off).
CREATE TABLE bid (auction BIGINT, price BIGINT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = 'bids.csv', 'format' = 'csv');
CREATE VIEW counts AS
  SELECT auction, COUNT(*) AS num, window_start, window_end
  FROM TABLE(HOP(TABLE bid, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '4' SECOND))
  GROUP BY auction, window_start, window_end;
EXPLAIN SELECT * FROM counts UNION ALL SELECT auction, num, window_start, window_end FROM counts;
