-- Functions > Temporal: CURRENT_WATERMARK(rowtime) in a WHERE (late-row filter)
-- oracle: SELECT order_id FROM orders
SELECT order_id FROM orders WHERE CURRENT_WATERMARK(order_time) IS NULL OR order_time > CURRENT_WATERMARK(order_time);
