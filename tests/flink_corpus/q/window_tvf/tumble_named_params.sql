-- Queries > Windowing TVF: named parameters DATA => / TIMECOL => / SIZE =>
-- oracle: SELECT tumble(bidtime, 600), SUM(price) FROM bids GROUP BY 1
SELECT window_start, SUM(price) FROM TABLE(TUMBLE(DATA => TABLE bids, TIMECOL => DESCRIPTOR(bidtime), SIZE => INTERVAL '10' MINUTES)) GROUP BY window_start, window_end;
