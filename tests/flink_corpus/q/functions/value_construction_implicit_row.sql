-- Functions > Value Construction: implicit row (a, b)
SELECT (user_id, name) FROM customers;
