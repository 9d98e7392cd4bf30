-- Queries > SELECT & WHERE: projection with arithmetic and aliases
-- oracle: SELECT order_id, amount * price, UPPER(product) FROM orders
SELECT order_id, amount * price AS total, UPPER(product) AS p FROM orders;
