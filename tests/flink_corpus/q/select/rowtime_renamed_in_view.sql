-- Queries > Time attributes: a renamed rowtime through a view feeds a window
-- oracle: SELECT tumble(order_time, 20), COUNT(*) FROM orders GROUP BY 1
CREATE VIEW ov AS SELECT order_id, order_time AS t FROM orders;
SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE ov, DESCRIPTOR(t), INTERVAL '20' SECOND)) GROUP BY window_start, window_end;
