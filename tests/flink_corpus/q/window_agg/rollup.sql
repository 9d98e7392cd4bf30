-- Queries > Window Aggregation: ROLLUP in a window
-- oracle: SELECT tumble(bidtime, 600), supplier, SUM(price) FROM bids GROUP BY 1, 2 UNION ALL SELECT tumble(bidtime, 600), NULL, SUM(price) FROM bids GROUP BY 1
SELECT window_start, supplier, SUM(price) FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES)) GROUP BY window_start, window_end, ROLLUP (supplier);
