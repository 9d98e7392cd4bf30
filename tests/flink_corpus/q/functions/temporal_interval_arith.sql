-- Functions > Temporal: timestamp + INTERVAL, DATE + INTERVAL, INTERVAL literals
-- oracle: VALUES ('2024-04-15 09:35:00', '2024-02-29', '2024-04-15 08:04:30')
SELECT bidtime + INTERVAL '1:30' HOUR TO MINUTE, DATE '2024-02-28' + INTERVAL '1' DAY, bidtime - INTERVAL '30' SECOND FROM bids WHERE bid_id = 1;
