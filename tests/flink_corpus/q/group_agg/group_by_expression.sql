-- Queries > Group Aggregation: GROUP BY an expression
-- oracle: SELECT amount > 2, COUNT(*) FROM orders WHERE amount IS NOT NULL GROUP BY amount > 2
SELECT amount > 2 AS big, COUNT(*) FROM orders WHERE amount IS NOT NULL GROUP BY amount > 2;
