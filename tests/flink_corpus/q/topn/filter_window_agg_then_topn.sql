-- Queries > Window Top-N over a filtered window aggregation (HAVING)
-- oracle: SELECT ws, supplier FROM (SELECT ws, supplier, ROW_NUMBER() OVER (PARTITION BY ws ORDER BY c DESC, s DESC) AS rn FROM (SELECT tumble(bidtime, 600) AS ws, supplier, COUNT(*) AS c, SUM(price) AS s FROM bids GROUP BY 1, 2 HAVING SUM(price) > 4)) WHERE rn = 1
SELECT window_start, supplier FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY c DESC, s DESC) AS rn FROM (
    SELECT window_start, window_end, supplier, COUNT(*) AS c, SUM(price) AS s FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES))
    GROUP BY window_start, window_end, supplier HAVING SUM(price) > 4))
WHERE rn = 1;
