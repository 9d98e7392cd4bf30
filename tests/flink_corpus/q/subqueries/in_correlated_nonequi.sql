-- Queries > Subqueries: correlated EXISTS with a non-equality condition
-- oracle: SELECT o.order_id FROM orders o WHERE EXISTS (SELECT 1 FROM shipments s WHERE s.order_id = o.order_id AND s.ship_time > tsadd(o.order_time, 10))
SELECT o.order_id FROM orders o WHERE EXISTS (SELECT * FROM shipments s WHERE s.order_id = o.order_id AND s.ship_time > o.order_time + INTERVAL '10' SECOND);
