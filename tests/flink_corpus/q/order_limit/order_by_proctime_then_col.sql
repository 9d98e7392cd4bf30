-- Queries > ORDER BY: a processing-time attribute ascending, then another column (the rows of one millisecond ordered by it)
-- oracle: SELECT order_id FROM orders
SELECT order_id FROM (SELECT *, PROCTIME() AS pt FROM orders) ORDER BY pt, amount DESC;
