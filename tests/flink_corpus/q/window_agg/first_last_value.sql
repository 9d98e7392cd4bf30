-- Queries > Window Aggregation: FIRST_VALUE / LAST_VALUE per window
-- oracle: VALUES ('2024-04-15 08:00:00', 'C', 'D'), ('2024-04-15 08:10:00', 'B', 'C'), ('2024-04-15 08:20:00', 'A', 'D')
SELECT window_start, FIRST_VALUE(item), LAST_VALUE(item) FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES)) GROUP BY window_start, window_end;
