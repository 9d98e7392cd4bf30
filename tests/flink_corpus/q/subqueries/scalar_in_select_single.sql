-- Queries > Subqueries: scalar subquery of one row (SINGLE_VALUE)
-- oracle: SELECT c.user_id, (SELECT name FROM customers WHERE user_id = 'u2') FROM customers c
SELECT c.user_id, (SELECT name FROM customers WHERE user_id = 'u2') FROM customers c;
