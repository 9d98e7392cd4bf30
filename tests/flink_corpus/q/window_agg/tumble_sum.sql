-- Queries > Window Aggregation: TUMBLE with SUM
-- oracle: SELECT tumble(bidtime, 600), tsadd(tumble(bidtime, 600), 600), SUM(price) FROM bids GROUP BY 1
SELECT window_start, window_end, SUM(price) AS total FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES)) GROUP BY window_start, window_end;
