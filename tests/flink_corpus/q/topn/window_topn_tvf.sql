-- Queries > Window Top-N following a window TVF directly
-- oracle: SELECT ws, bid_id FROM (SELECT tumble(bidtime, 600) AS ws, bid_id, ROW_NUMBER() OVER (PARTITION BY tumble(bidtime, 600) ORDER BY price DESC) AS rn FROM bids) WHERE rn <= 1
SELECT window_start, bid_id FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY price DESC) AS rn
  FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES)))
WHERE rn <= 1;
