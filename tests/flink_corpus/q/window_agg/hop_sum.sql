-- Queries > Window Aggregation: HOP with SUM
-- oracle: SELECT ws, tsadd(ws, 600), SUM(price) FROM (SELECT tsadd(tumble(bidtime, 300), -300 * k) AS ws, price FROM bids, (SELECT 0 AS k UNION ALL SELECT 1)) GROUP BY ws
SELECT window_start, window_end, SUM(price) FROM TABLE(HOP(TABLE bids, DESCRIPTOR(bidtime), INTERVAL '5' MINUTES, INTERVAL '10' MINUTES)) GROUP BY window_start, window_end;
