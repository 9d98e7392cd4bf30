-- Queries > Set Operations: UNION ALL of two window aggregations
-- oracle: SELECT tumble(bidtime, 600), 'bids', COUNT(*) FROM bids GROUP BY 1 UNION ALL SELECT tumble(order_time, 600), 'orders', COUNT(*) FROM orders GROUP BY 1
SELECT window_start, 'bids', COUNT(*) FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES)) GROUP BY window_start, window_end
UNION ALL
SELECT window_start, 'orders', COUNT(*) FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(order_time), INTERVAL '10' MINUTES)) GROUP BY window_start, window_end;
