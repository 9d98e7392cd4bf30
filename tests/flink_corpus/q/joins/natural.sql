-- Queries > Joins: NATURAL JOIN
-- oracle: SELECT order_id, name FROM orders NATURAL JOIN customers
SELECT order_id, name FROM orders NATURAL JOIN customers;
