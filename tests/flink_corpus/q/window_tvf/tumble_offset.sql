-- Queries > Windowing TVF: TUMBLE with an offset
-- oracle: SELECT tsadd(tumble(tsadd(bidtime, -60), 600), 60), COUNT(*) FROM bids GROUP BY 1
SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES, INTERVAL '1' MINUTES)) GROUP BY window_start, window_end;
