-- Queries > Joins > Lookup Join: LEFT lookup join with a filter on the dimension
-- oracle: SELECT o.order_id, c.name FROM orders o LEFT JOIN customers c ON o.user_id = c.user_id AND c.country = 'DE'
SELECT o.order_id, c.name FROM orders_pt AS o LEFT JOIN customers FOR SYSTEM_TIME AS OF o.pt AS c ON o.user_id = c.user_id AND c.country = 'DE';
