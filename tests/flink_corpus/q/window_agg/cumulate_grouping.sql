-- Queries > Window Aggregation: CUMULATE with a key and COUNT DISTINCT
-- oracle: SELECT tumble(bidtime, 1800), tsadd(tumble(bidtime, 1800), 600 * k), supplier, COUNT(DISTINCT item) FROM bids, (SELECT 1 AS k UNION ALL SELECT 2 UNION ALL SELECT 3) WHERE tsadd(tumble(bidtime, 1800), 600 * k) > bidtime GROUP BY 1, 2, 3
SELECT window_start, window_end, supplier, COUNT(DISTINCT item) FROM TABLE(CUMULATE(TABLE bids, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES, INTERVAL '30' MINUTES)) GROUP BY window_start, window_end, supplier;
