-- Queries > Window Aggregation: outer GROUP BY window_start, window_end over an inner window aggregation
-- oracle: SELECT ws, COUNT(*), SUM(c) FROM (SELECT tumble(bidtime, 600) AS ws, supplier, COUNT(*) AS c FROM bids GROUP BY 1, 2) GROUP BY ws
SELECT window_start, COUNT(*), SUM(cnt) FROM (
  SELECT supplier, window_start, window_end, COUNT(*) AS cnt FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES)) GROUP BY supplier, window_start, window_end)
GROUP BY window_start, window_end;
