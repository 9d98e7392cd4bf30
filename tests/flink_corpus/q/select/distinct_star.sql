-- Queries > SELECT DISTINCT *: every column of the table is a grouping key
-- oracle: SELECT DISTINCT * FROM orders
SELECT DISTINCT * FROM orders;
