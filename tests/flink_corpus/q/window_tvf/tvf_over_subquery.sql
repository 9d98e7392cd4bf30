-- Queries > Windowing TVF: TABLE(TUMBLE(TABLE v ...)) over a filtering view
-- oracle: SELECT tumble(bidtime, 600), COUNT(*) FROM bids WHERE supplier = 's1' GROUP BY 1
CREATE VIEW s1 AS SELECT * FROM bids WHERE supplier = 's1';
SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE s1, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES)) GROUP BY window_start, window_end;
