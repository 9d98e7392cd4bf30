-- Queries > Window Join: window SEMI join with IN
-- oracle: SELECT l.bid_id FROM bids l WHERE EXISTS (SELECT 1 FROM bids r WHERE r.supplier = l.supplier AND r.bid_id <> l.bid_id AND tumble(l.bidtime, 600) = tumble(r.bidtime, 600))
SELECT bid_id FROM (SELECT * FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES))) L
WHERE L.supplier IN (SELECT supplier FROM (SELECT * FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES))) R
  WHERE L.window_start = R.window_start AND L.window_end = R.window_end AND R.bid_id <> L.bid_id);
