-- Queries > Windowing TVF: CUMULATE as a table
-- oracle: SELECT bid_id, tumble(bidtime, 600), tsadd(tumble(bidtime, 600), 120 * k) FROM bids, (SELECT 1 AS k UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4 UNION ALL SELECT 5) WHERE tsadd(tumble(bidtime, 600), 120 * k) > bidtime
SELECT bid_id, window_start, window_end FROM TABLE(CUMULATE(TABLE bids, DESCRIPTOR(bidtime), INTERVAL '2' MINUTES, INTERVAL '10' MINUTES));
