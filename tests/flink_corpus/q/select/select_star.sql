-- Queries > SELECT & WHERE: SELECT * from a table
-- oracle: SELECT * FROM orders
SELECT * FROM orders;
