-- Queries > Joins > Lookup Join: FOR SYSTEM_TIME AS OF a processing-time attribute
-- oracle: SELECT o.order_id, c.country FROM orders o JOIN customers c ON o.user_id = c.user_id
SELECT o.order_id, c.country FROM orders_pt AS o JOIN customers FOR SYSTEM_TIME AS OF o.pt AS c ON o.user_id = c.user_id;
