-- Queries > SELECT from a derived table (subquery in FROM)
-- oracle: SELECT order_id, amount * 2 FROM orders WHERE amount > 4
SELECT order_id, doubled FROM (SELECT order_id, amount * 2 AS doubled, amount FROM orders) WHERE amount > 4;
