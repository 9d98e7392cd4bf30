-- Queries > Joins > Interval Joins: BETWEEN bounds
-- oracle: SELECT o.order_id, s.ship_id FROM orders o JOIN shipments s ON o.order_id = s.order_id AND s.ship_time BETWEEN o.order_time AND tsadd(o.order_time, 10)
SELECT o.order_id, s.ship_id FROM orders o, shipments s WHERE o.order_id = s.order_id AND s.ship_time BETWEEN o.order_time AND o.order_time + INTERVAL '10' SECOND;
