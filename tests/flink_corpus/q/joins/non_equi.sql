-- Queries > Joins: a join without an equality (theta join)
-- oracle: SELECT b.bid_id, c.user_id FROM bids b, customers c WHERE b.price > 7 AND c.country = 'DE'
SELECT b.bid_id, c.user_id FROM bids b JOIN customers c ON b.price > 7 AND c.country = 'DE';
