-- Queries > Window Aggregation: HAVING on a window aggregate
-- oracle: SELECT tumble(bidtime, 600), SUM(price) FROM bids GROUP BY 1 HAVING SUM(price) > 12
SELECT window_start, SUM(price) FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES)) GROUP BY window_start, window_end HAVING SUM(price) > 12;
