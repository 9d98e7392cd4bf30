-- Queries > ORDER BY: time attribute then another column
-- ordered
-- oracle: SELECT bid_id, price FROM bids ORDER BY bidtime, price DESC
SELECT bid_id, price FROM bids ORDER BY bidtime, price DESC;
