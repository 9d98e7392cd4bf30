-- Queries > Subqueries: uncorrelated scalar subquery in WHERE
-- oracle: SELECT order_id FROM orders WHERE price > (SELECT AVG(price) FROM orders)
SELECT order_id FROM orders WHERE price > (SELECT AVG(price) FROM orders);
