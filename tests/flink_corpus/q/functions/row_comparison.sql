-- Functions > Comparison Functions: row values compared field by field, (a, b) = (c, d) and (a, b) < (c, d)
-- oracle: SELECT order_id, user_id = 'u1' AND currency = 'EUR', user_id < 'u2' OR (user_id = 'u2' AND amount < 3) FROM orders
SELECT order_id, (user_id, currency) = ('u1', 'EUR'), ROW(user_id, amount) < ROW('u2', 3) FROM orders;
