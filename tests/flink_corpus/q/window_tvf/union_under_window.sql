-- Queries > Windowing TVF over a UNION ALL of two tables
-- oracle: SELECT tumble(t, 20), COUNT(*) FROM (SELECT order_time AS t FROM orders UNION ALL SELECT ship_time FROM shipments) GROUP BY 1
CREATE VIEW evts AS SELECT order_time AS t FROM orders UNION ALL SELECT ship_time AS t FROM shipments;
SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE evts, DESCRIPTOR(t), INTERVAL '20' SECOND)) GROUP BY window_start, window_end;
