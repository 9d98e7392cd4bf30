-- Queries > Joins: three-way join
-- oracle: SELECT o.order_id, c.name, s.ship_id FROM orders o JOIN customers c ON o.user_id = c.user_id JOIN shipments s ON s.order_id = o.order_id
SELECT o.order_id, c.name, s.ship_id FROM orders o JOIN customers c ON o.user_id = c.user_id JOIN shipments s ON s.order_id = o.order_id;
