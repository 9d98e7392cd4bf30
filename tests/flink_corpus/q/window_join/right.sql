-- Queries > Window Join: RIGHT window join
-- oracle: SELECT l.bid_id, r.bid_id FROM bids r LEFT JOIN bids l ON l.supplier = r.supplier AND tumble(l.bidtime, 600) = tumble(r.bidtime, 600) AND l.price > r.price
SELECT L.bid_id, R.bid_id FROM (SELECT * FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES))) L
RIGHT JOIN (SELECT * FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES))) R
ON L.supplier = R.supplier AND L.window_start = R.window_start AND L.window_end = R.window_end AND L.price > R.price;
