-- Queries > Subqueries: nested IN subqueries
-- oracle: SELECT order_id FROM orders WHERE order_id IN (SELECT order_id FROM shipments WHERE ship_id IN (SELECT ship_id FROM shipments WHERE ship_id > 102))
SELECT order_id FROM orders WHERE order_id IN (SELECT order_id FROM shipments WHERE ship_id IN (SELECT ship_id FROM shipments WHERE ship_id > 102));
