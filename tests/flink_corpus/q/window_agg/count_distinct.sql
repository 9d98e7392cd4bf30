-- Queries > Window Aggregation: COUNT(DISTINCT) in a HOP window
-- oracle: SELECT ws, COUNT(DISTINCT supplier) FROM (SELECT tsadd(tumble(bidtime, 300), -300 * k) AS ws, supplier FROM bids, (SELECT 0 AS k UNION ALL SELECT 1)) GROUP BY ws
SELECT window_start, COUNT(DISTINCT supplier) FROM TABLE(HOP(TABLE bids, DESCRIPTOR(bidtime), INTERVAL '5' MINUTES, INTERVAL '10' MINUTES)) GROUP BY window_start, window_end;
