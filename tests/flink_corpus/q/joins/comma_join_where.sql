-- Queries > Joins: implicit (comma) join with the condition in WHERE
-- oracle: SELECT o.order_id, s.ship_id FROM orders o, shipments s WHERE o.order_id = s.order_id
SELECT o.order_id, s.ship_id FROM orders o, shipments s WHERE o.order_id = s.order_id;
