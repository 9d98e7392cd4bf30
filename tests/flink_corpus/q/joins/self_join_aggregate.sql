-- Queries > Joins: regular join then aggregation (updating)
-- oracle: SELECT c.country, SUM(o.amount) FROM orders o JOIN customers c ON o.user_id = c.user_id GROUP BY c.country
SELECT c.country, SUM(o.amount) FROM orders o JOIN customers c ON o.user_id = c.user_id GROUP BY c.country;
