-- Queries > Window Join: window ANTI join with NOT EXISTS
-- oracle: SELECT l.bid_id FROM bids l WHERE NOT EXISTS (SELECT 1 FROM bids r WHERE r.supplier = l.supplier AND r.bid_id <> l.bid_id AND tumble(l.bidtime, 600) = tumble(r.bidtime, 600))
SELECT bid_id FROM (SELECT * FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES))) L
WHERE NOT EXISTS (SELECT * FROM (SELECT * FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES))) R
  WHERE L.supplier = R.supplier AND L.window_start = R.window_start AND L.window_end = R.window_end AND R.bid_id <> L.bid_id);
