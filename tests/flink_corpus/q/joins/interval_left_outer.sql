-- Queries > Joins > Interval Joins: LEFT OUTER interval join
-- oracle: SELECT o.order_id, s.ship_id FROM orders o LEFT JOIN shipments s ON o.order_id = s.order_id AND s.ship_time BETWEEN o.order_time AND tsadd(o.order_time, 10)
SELECT o.order_id, s.ship_id FROM orders o LEFT JOIN shipments s ON o.order_id = s.order_id AND s.ship_time BETWEEN o.order_time AND o.order_time + INTERVAL '10' SECOND;
