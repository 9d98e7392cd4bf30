-- Queries > Window Join: join of two window aggregations on their bounds
-- oracle: SELECT a.ws, a.c, b.s FROM (SELECT tumble(bidtime, 600) AS ws, COUNT(*) AS c FROM bids GROUP BY 1) a JOIN (SELECT tumble(bidtime, 600) AS ws, SUM(price) AS s FROM bids GROUP BY 1) b ON a.ws = b.ws
SELECT a.window_start, a.c, b.s FROM
 (SELECT window_start, window_end, COUNT(*) AS c FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES)) GROUP BY window_start, window_end) a
JOIN (SELECT window_start, window_end, SUM(price) AS s FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES)) GROUP BY window_start, window_end) b
ON a.window_start = b.window_start AND a.window_end = b.window_end;
