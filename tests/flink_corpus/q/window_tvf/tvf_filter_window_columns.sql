-- Queries > Windowing TVF: filtering the window columns of a TVF table
-- oracle: SELECT bid_id FROM bids WHERE tumble(bidtime, 600) = '2024-04-15 08:10:00'
SELECT bid_id FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES)) WHERE window_start = TIMESTAMP '2024-04-15 08:10:00';
