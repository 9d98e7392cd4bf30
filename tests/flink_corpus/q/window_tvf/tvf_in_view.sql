-- Queries > Windowing TVF: the TVF in a view, aggregated outside
-- oracle: SELECT tumble(bidtime, 600), MAX(price) FROM bids GROUP BY 1
CREATE VIEW w AS SELECT * FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES));
SELECT window_start, MAX(price) FROM w GROUP BY window_start, window_end;
