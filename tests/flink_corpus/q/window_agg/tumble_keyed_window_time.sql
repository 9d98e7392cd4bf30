-- Queries > Window Aggregation: GROUP BY key, window_start, window_end, window_time
-- oracle: SELECT supplier, tumble(bidtime, 600), tsadd(tumble(bidtime, 600), 599.999), COUNT(*), MAX(price) FROM bids GROUP BY 1, 2
SELECT supplier, window_start, window_time, COUNT(*), MAX(price) FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES)) GROUP BY supplier, window_start, window_end, window_time;
