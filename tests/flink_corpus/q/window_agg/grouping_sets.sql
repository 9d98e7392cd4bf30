-- Queries > Window Aggregation: GROUPING SETS in a window
-- oracle: SELECT tumble(bidtime, 600), supplier, item, SUM(price) FROM bids GROUP BY 1, 2, 3 UNION ALL SELECT tumble(bidtime, 600), supplier, NULL, SUM(price) FROM bids GROUP BY 1, 2 UNION ALL SELECT tumble(bidtime, 600), NULL, NULL, SUM(price) FROM bids GROUP BY 1
SELECT window_start, supplier, item, SUM(price) FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES)) GROUP BY window_start, window_end, GROUPING SETS ((supplier, item), (supplier), ());
