-- Queries > Group Window Aggregation (legacy): GROUP BY TUMBLE(...) with TUMBLE_START/TUMBLE_END
-- oracle: SELECT supplier, tumble(bidtime, 600), tsadd(tumble(bidtime, 600), 600), SUM(price) FROM bids GROUP BY 1, 2
SELECT supplier, TUMBLE_START(bidtime, INTERVAL '10' MINUTE), TUMBLE_END(bidtime, INTERVAL '10' MINUTE), SUM(price) FROM bids GROUP BY supplier, TUMBLE(bidtime, INTERVAL '10' MINUTE);
