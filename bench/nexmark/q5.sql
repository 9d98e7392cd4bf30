-- Nexmark q5, from the reference suite (nexmark/nexmark, module
-- nexmark-flink, queries/q5.sql); the tables come from ddl.sql.
-- weir: runs as in the reference. MaxBids is the MAX of AuctionBids' own
--   count per window (the same window aggregation), so the join on both
--   bounds with num >= maxn keeps AuctionBids' rows at their window's
--   maximum: weir plans it as a window Top-1 with ties (RANK() <= 1 per
--   window, each batch of the aggregation first filtered down to its
--   window's top) instead of a window join that would keep every
--   (auction, window) row until the window ends (docs/joins.md). The result
--   is append-only and the state holds the open windows only.
--   bench/nexmark/q5_hop.sql is its first half alone.
--
-- Query 5: Hot Items
-- Which auctions have seen the most bids in the last period?
-- Illustrates sliding windows and combiners.
--
-- The original Nexmark Query5 calculate the hot items in the last hour (updated every minute).
-- To make things a bit more dynamic and easier to test we use much shorter windows,
-- i.e. in the last 10 seconds and update every 2 seconds.

CREATE TABLE nexmark_q5 (
  auction  BIGINT,
  num  BIGINT
) WITH (
  'connector' = 'blackhole'
);

INSERT INTO nexmark_q5
SELECT AuctionBids.auction, AuctionBids.num
 FROM (
   SELECT
     auction,
     count(*) AS num,
     window_start AS starttime,
     window_end AS endtime
     FROM TABLE(
             HOP(TABLE bid, DESCRIPTOR(`dateTime`), INTERVAL '2' SECOND, INTERVAL '10' SECOND))
     GROUP BY auction, window_start, window_end
 ) AS AuctionBids
 JOIN (
   SELECT
     max(CountBids.num) AS maxn,
     CountBids.starttime,
     CountBids.endtime
   FROM (
     SELECT
       count(*) AS num,
       window_start AS starttime,
       window_end AS endtime
     FROM TABLE(
                HOP(TABLE bid, DESCRIPTOR(`dateTime`), INTERVAL '2' SECOND, INTERVAL '10' SECOND))
     GROUP BY auction, window_start, window_end
     ) AS CountBids
   GROUP BY CountBids.starttime, CountBids.endtime
 ) AS MaxBids
 ON AuctionBids.starttime = MaxBids.starttime AND
    AuctionBids.endtime = MaxBids.endtime AND
    AuctionBids.num >= MaxBids.maxn;
