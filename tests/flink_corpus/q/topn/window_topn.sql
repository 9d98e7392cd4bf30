-- Queries > Window Top-N: top 2 per window over a window aggregation
-- oracle: SELECT ws, supplier, s, rn FROM (SELECT ws, supplier, s, ROW_NUMBER() OVER (PARTITION BY ws ORDER BY s DESC) AS rn FROM (SELECT tumble(bidtime, 600) AS ws, supplier, SUM(price) AS s FROM bids GROUP BY 1, 2)) WHERE rn <= 2
SELECT window_start, supplier, s, rn FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY s DESC) AS rn FROM (
    SELECT window_start, window_end, supplier, SUM(price) AS s FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES)) GROUP BY window_start, window_end, supplier))
WHERE rn <= 2;
