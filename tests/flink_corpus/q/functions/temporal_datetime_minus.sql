-- Functions > Temporal: the difference of two timestamps as an INTERVAL, (t1 - t2) unit
-- oracle: VALUES (21, 1, 0)
SELECT EXTRACT(MINUTE FROM (TIMESTAMP '2024-04-15 08:26:00' - bidtime) MINUTE),
       EXTRACT(MONTH FROM (DATE '2024-05-15' - CAST(bidtime AS DATE)) MONTH),
       EXTRACT(YEAR FROM (DATE '2024-05-15' - CAST(bidtime AS DATE)) YEAR TO MONTH)
FROM bids WHERE bid_id = 1;
