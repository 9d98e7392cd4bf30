-- Queries > Window Top-N / join: the items with the most bids per HOP window (the Nexmark "hot items" shape)
-- oracle: WITH c AS (SELECT ws, item, COUNT(*) AS n FROM (SELECT tsadd(tumble(bidtime, 300), -300 * k) AS ws, item FROM bids, (SELECT 0 AS k UNION ALL SELECT 1)) GROUP BY 1, 2)
-- oracle: SELECT c.ws, c.item, c.n FROM c JOIN (SELECT ws, MAX(n) AS m FROM c GROUP BY ws) x ON c.ws = x.ws AND c.n = x.m
SELECT a.window_start, a.item, a.n FROM
 (SELECT window_start, window_end, item, COUNT(*) AS n FROM TABLE(HOP(TABLE bids, DESCRIPTOR(bidtime), INTERVAL '5' MINUTES, INTERVAL '10' MINUTES)) GROUP BY window_start, window_end, item) a
JOIN (SELECT window_start, window_end, MAX(n) AS m FROM
   (SELECT window_start, window_end, item, COUNT(*) AS n FROM TABLE(HOP(TABLE bids, DESCRIPTOR(bidtime), INTERVAL '5' MINUTES, INTERVAL '10' MINUTES)) GROUP BY window_start, window_end, item)
   GROUP BY window_start, window_end) b
ON a.window_start = b.window_start AND a.window_end = b.window_end AND a.n = b.m;
