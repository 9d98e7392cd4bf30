-- Functions > Temporal: FLOOR / CEIL of a timestamp TO a unit
-- oracle: VALUES ('2024-04-15 08:00:00', '2024-04-15 09:00:00')
SELECT FLOOR(bidtime TO HOUR), CEIL(bidtime TO HOUR) FROM bids WHERE bid_id = 1;
