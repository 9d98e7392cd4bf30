-- Queries > Group Aggregation: aggregate without GROUP BY
-- oracle: SELECT COUNT(*), COUNT(amount), SUM(amount) FROM orders
SELECT COUNT(*), COUNT(amount), SUM(amount) FROM orders;
