-- Queries > Window Join: TVFs joined directly, without subqueries
-- oracle: SELECT l.bid_id, r.bid_id FROM bids l JOIN bids r ON l.item = r.item AND l.bid_id < r.bid_id AND tumble(l.bidtime, 600) = tumble(r.bidtime, 600)
SELECT L.bid_id, R.bid_id FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES)) L
JOIN TABLE(TUMBLE(TABLE bids, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES)) R
ON L.item = R.item AND L.bid_id < R.bid_id AND L.window_start = R.window_start AND L.window_end = R.window_end;
