-- Queries > Window Deduplication: first row per supplier and window
-- oracle: SELECT ws, supplier, bid_id FROM (SELECT tumble(bidtime, 600) AS ws, supplier, bid_id, ROW_NUMBER() OVER (PARTITION BY tumble(bidtime, 600), supplier ORDER BY bidtime) AS rn FROM bids) WHERE rn = 1
SELECT window_start, supplier, bid_id FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end, supplier ORDER BY bidtime) AS rn
  FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES)))
WHERE rn = 1;
