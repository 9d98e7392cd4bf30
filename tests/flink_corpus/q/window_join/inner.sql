-- Queries > Window Join: INNER window join of two TUMBLE TVFs (subquery-wrapped form)
-- oracle: SELECT l.bid_id, r.bid_id FROM bids l JOIN bids r ON l.price = r.price + 1 AND tumble(l.bidtime, 600) = tumble(r.bidtime, 600)
SELECT L.bid_id, R.bid_id FROM (SELECT * FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES))) L
JOIN (SELECT * FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES))) R
ON L.price = R.price + 1 AND L.window_start = R.window_start AND L.window_end = R.window_end;
