-- Queries > WITH clause (common table expression)
-- oracle: SELECT user_id, SUM(amount) FROM orders WHERE amount IS NOT NULL GROUP BY user_id
WITH big AS (SELECT user_id, amount FROM orders WHERE amount IS NOT NULL)
SELECT user_id, SUM(amount) FROM big GROUP BY user_id;
