-- Queries > Subqueries: row constructor NOT IN (a, b) NOT IN (SELECT ...)
-- oracle: SELECT order_id FROM orders WHERE user_id || '/' || currency NOT IN ('u1/EUR', 'u2/USD')
SELECT order_id FROM orders WHERE (user_id, currency) NOT IN (SELECT user_id, currency FROM (VALUES ('u1', 'EUR'), ('u2', 'USD')) AS t(user_id, currency));
