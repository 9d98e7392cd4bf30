-- Queries > Window Top-N over a HOP TVF wrapped in a subquery
-- oracle: SELECT ws, bid_id FROM (SELECT ws, bid_id, ROW_NUMBER() OVER (PARTITION BY ws ORDER BY price DESC) AS rn FROM (SELECT tsadd(tumble(bidtime, 300), -300 * k) AS ws, bid_id, price FROM bids, (SELECT 0 AS k UNION ALL SELECT 1))) WHERE rn <= 1
SELECT window_start, bid_id FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY price DESC) AS rn
  FROM (SELECT * FROM TABLE(HOP(TABLE bids, DESCRIPTOR(bidtime), INTERVAL '5' MINUTES, INTERVAL '10' MINUTES))))
WHERE rn <= 1;
