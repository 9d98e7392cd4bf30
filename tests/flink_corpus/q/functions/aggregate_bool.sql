-- Functions > Aggregate: BOOL_AND / BOOL_OR style via MIN/MAX of booleans
-- oracle: VALUES (0, 1)
SELECT MIN(price > 1), MAX(price > 8) FROM bids;
