-- Cascading window aggregation (Nexmark q5's shape): a GROUP BY on the
-- window bounds of a window aggregation's output - renamed, as q5 does -
-- is a window aggregation on the same windows: append-only, one row per
-- window when the watermark passes its end, its state dropped then. Then
-- the join of the two on the bounds with num >= maxn (planned as a window
-- Top-1 with ties, the rows at their window's maximum):
-- the hottest auctions of each HOP(2 s, 4 s) window. The sink takes
-- appends only, so a changelog anywhere in the plan would be refused.
CREATE TABLE bid (auction BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = 'bids.csv', 'format' = 'csv');
CREATE TABLE hot (auction BIGINT, num BIGINT, starttime TIMESTAMP(3)) WITH (
  'connector' = 'filesystem', 'path' = 'hot', 'format' = 'csv');
CREATE VIEW counts AS
  SELECT auction, count(*) AS num, window_start AS starttime, window_end AS endtime
  FROM TABLE(HOP(TABLE bid, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '4' SECOND))
  GROUP BY auction, window_start, window_end;

SELECT 'max', starttime, endtime, max(num) AS maxn, count(*) AS auctions FROM counts GROUP BY starttime, endtime;

INSERT INTO hot
SELECT c.auction, c.num, c.starttime FROM counts c
JOIN (SELECT max(num) AS maxn, starttime, endtime FROM counts GROUP BY starttime, endtime) m
  ON c.starttime = m.starttime AND c.endtime = m.endtime AND c.num >= m.maxn;
