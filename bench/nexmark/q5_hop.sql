-- NOT Nexmark q5: the first half of q5 alone (bids per auction in each
-- 10-second window, every 2 seconds), without the join that picks the
-- hottest auctions of each window, which weir cannot plan yet. It measures
-- the sliding-window aggregation that does most of q5's work; its figures
-- are reported as "q5_hop", never as q5.

CREATE TABLE nexmark_q5_hop (
  auction  BIGINT,
  num  BIGINT,
  starttime  TIMESTAMP(3),
  endtime  TIMESTAMP(3)
) WITH (
  'connector' = 'blackhole'
);

INSERT INTO nexmark_q5_hop
SELECT
  auction,
  count(*) AS num,
  window_start AS starttime,
  window_end AS endtime
FROM TABLE(
        HOP(TABLE bid, DESCRIPTOR(`dateTime`), INTERVAL '2' SECOND, INTERVAL '10' SECOND))
GROUP BY auction, window_start, window_end;
