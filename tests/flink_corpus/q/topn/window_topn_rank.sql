-- Queries > Window Top-N with RANK() (ties share a rank)
-- oracle: SELECT ws, bid_id, rk FROM (SELECT tumble(bidtime, 1800) AS ws, bid_id, RANK() OVER (PARTITION BY tumble(bidtime, 1800) ORDER BY price) AS rk FROM bids) WHERE rk <= 3
SELECT window_start, bid_id, rk FROM (
  SELECT *, RANK() OVER (PARTITION BY window_start, window_end ORDER BY price) AS rk
  FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(bidtime), INTERVAL '30' MINUTES)))
WHERE rk <= 3;
