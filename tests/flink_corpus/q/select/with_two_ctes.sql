-- Queries > WITH clause: two CTEs, the second reading the first
-- oracle: SELECT user_id, COUNT(*) FROM orders WHERE currency = 'EUR' GROUP BY user_id HAVING COUNT(*) > 1
WITH eur AS (SELECT * FROM orders WHERE currency = 'EUR'),
     cnt AS (SELECT user_id, COUNT(*) AS c FROM eur GROUP BY user_id)
SELECT user_id, c FROM cnt WHERE c > 1;
