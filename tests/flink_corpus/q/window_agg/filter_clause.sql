-- Queries > Window Aggregation: FILTER (WHERE ...) on aggregates
-- oracle: SELECT tumble(bidtime, 600), SUM(CASE WHEN price > 3 THEN 1 ELSE 0 END), COUNT(*) FROM bids GROUP BY 1
SELECT window_start, COUNT(*) FILTER (WHERE price > 3), COUNT(*) FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES)) GROUP BY window_start, window_end;
