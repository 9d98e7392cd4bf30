-- Queries > Joins > Lookup Join with a computed key expression
-- oracle: SELECT o.order_id, c.name FROM orders o JOIN customers c ON c.user_id = 'u' || CAST((o.order_id % 3) + 1 AS TEXT)
SELECT o.order_id, c.name FROM orders_pt AS o JOIN customers FOR SYSTEM_TIME AS OF o.pt AS c ON c.user_id = CONCAT('u', CAST(MOD(o.order_id, 3) + 1 AS STRING));
