-- Queries > Joins > Interval Joins: a window aggregation over the interval join's time attribute
-- oracle: SELECT tumble(o.order_time, 20), COUNT(*) FROM orders o JOIN shipments s ON o.order_id = s.order_id AND s.ship_time BETWEEN o.order_time AND tsadd(o.order_time, 30) GROUP BY 1
CREATE VIEW j AS SELECT o.order_id, o.order_time, s.ship_time FROM orders o, shipments s WHERE o.order_id = s.order_id AND s.ship_time BETWEEN o.order_time AND o.order_time + INTERVAL '30' SECOND;
SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE j, DESCRIPTOR(order_time), INTERVAL '20' SECOND)) GROUP BY window_start, window_end;
