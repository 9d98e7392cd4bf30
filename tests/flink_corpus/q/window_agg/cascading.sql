-- Queries > Window Aggregation: cascading window aggregation (5 minute then 10 minute)
-- oracle: SELECT tumble(bidtime, 600), SUM(price) FROM bids GROUP BY 1
CREATE VIEW five AS SELECT window_start, window_end, window_time AS rowtime, SUM(price) AS partial_price
  FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(bidtime), INTERVAL '5' MINUTES)) GROUP BY supplier, window_start, window_end, window_time;
SELECT window_start, SUM(partial_price) FROM TABLE(TUMBLE(TABLE five, DESCRIPTOR(rowtime), INTERVAL '10' MINUTES)) GROUP BY window_start, window_end;
