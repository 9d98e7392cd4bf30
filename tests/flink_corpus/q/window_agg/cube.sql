-- Queries > Window Aggregation: CUBE in a window with GROUPING_ID
-- oracle: SELECT tumble(bidtime, 600), supplier, item, 0, COUNT(*) FROM bids GROUP BY 1, 2, 3 UNION ALL SELECT tumble(bidtime, 600), supplier, NULL, 1, COUNT(*) FROM bids GROUP BY 1, 2
-- oracle: UNION ALL SELECT tumble(bidtime, 600), NULL, item, 2, COUNT(*) FROM bids GROUP BY 1, 3 UNION ALL SELECT tumble(bidtime, 600), NULL, NULL, 3, COUNT(*) FROM bids GROUP BY 1
SELECT window_start, supplier, item, GROUPING_ID(supplier, item), COUNT(*) FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES)) GROUP BY window_start, window_end, CUBE (supplier, item);
