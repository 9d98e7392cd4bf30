-- Queries > Window Aggregation: CUMULATE with SUM
-- oracle: SELECT tumble(bidtime, 600), tsadd(tumble(bidtime, 600), 120 * k), SUM(price) FROM bids, (SELECT 1 AS k UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4 UNION ALL SELECT 5) WHERE tsadd(tumble(bidtime, 600), 120 * k) > bidtime GROUP BY 1, 2
SELECT window_start, window_end, SUM(price) FROM TABLE(CUMULATE(TABLE bids, DESCRIPTOR(bidtime), INTERVAL '2' MINUTES, INTERVAL '10' MINUTES)) GROUP BY window_start, window_end;
