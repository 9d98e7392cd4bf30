-- Queries > Windowing TVF: HOP as a table (each row in size/slide windows)
-- oracle: SELECT bid_id, ws, tsadd(ws, 600) FROM (SELECT bid_id, tsadd(tumble(bidtime, 300), -300 * k) AS ws FROM bids, (SELECT 0 AS k UNION ALL SELECT 1))
SELECT bid_id, window_start, window_end FROM TABLE(HOP(TABLE bids, DESCRIPTOR(bidtime), INTERVAL '5' MINUTES, INTERVAL '10' MINUTES));
