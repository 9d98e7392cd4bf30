-- Queries > Window Join: FULL OUTER window join, COALESCE of the window bounds
-- oracle: SELECT tumble(bidtime, 600), bid_id, NULL FROM bids WHERE supplier = 's1' UNION ALL SELECT tumble(bidtime, 600), NULL, bid_id FROM bids WHERE supplier = 's3'
SELECT COALESCE(L.window_start, R.window_start), L.bid_id, R.bid_id FROM (SELECT * FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES)) WHERE supplier = 's1') L
FULL JOIN (SELECT * FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES)) WHERE supplier = 's3') R
ON L.item = R.item AND L.window_start = R.window_start AND L.window_end = R.window_end;
