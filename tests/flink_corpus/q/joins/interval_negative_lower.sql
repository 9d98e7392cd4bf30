-- Queries > Joins > Interval Joins: a lower bound in the past
-- oracle: SELECT o.order_id, s.ship_id FROM orders o JOIN shipments s ON s.ship_time BETWEEN tsadd(o.order_time, -5) AND tsadd(o.order_time, 5)
SELECT o.order_id, s.ship_id FROM orders o, shipments s WHERE s.ship_time BETWEEN o.order_time - INTERVAL '5' SECOND AND o.order_time + INTERVAL '5' SECOND;
