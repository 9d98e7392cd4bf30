-- Queries > Joins > Interval Joins: two strict comparisons
-- oracle: SELECT o.order_id, s.ship_id FROM orders o JOIN shipments s ON o.order_id = s.order_id AND s.ship_time > o.order_time AND s.ship_time < tsadd(o.order_time, 20)
SELECT o.order_id, s.ship_id FROM orders o JOIN shipments s ON o.order_id = s.order_id AND s.ship_time > o.order_time AND s.ship_time < o.order_time + INTERVAL '20' SECOND;
