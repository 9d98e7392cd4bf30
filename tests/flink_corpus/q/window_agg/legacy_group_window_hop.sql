-- Queries > Group Window Aggregation (legacy): GROUP BY HOP(...) with HOP_START
-- oracle: SELECT ws, COUNT(*) FROM (SELECT tsadd(tumble(bidtime, 300), -300 * k) AS ws FROM bids, (SELECT 0 AS k UNION ALL SELECT 1)) GROUP BY ws
SELECT HOP_START(bidtime, INTERVAL '5' MINUTE, INTERVAL '10' MINUTE), COUNT(*) FROM bids GROUP BY HOP(bidtime, INTERVAL '5' MINUTE, INTERVAL '10' MINUTE);
