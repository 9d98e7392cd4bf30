-- Queries > LIMIT: ORDER BY ... LIMIT as a streaming Top-N
-- oracle: SELECT bid_id, price FROM bids ORDER BY price DESC LIMIT 3
SELECT bid_id, price FROM bids ORDER BY price DESC LIMIT 3;
