-- Queries > Joins: JOIN ... USING
-- oracle: SELECT user_id, order_id, name FROM orders JOIN customers USING (user_id)
SELECT user_id, order_id, name FROM orders JOIN customers USING (user_id);
