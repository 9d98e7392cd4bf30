-- Queries > LIMIT: LIMIT without ORDER BY (the first rows)
-- oracle: SELECT order_id FROM orders ORDER BY rowid LIMIT 4
SELECT order_id FROM orders LIMIT 4;
