-- Queries > Hints > Join Hints: SHUFFLE_HASH
-- oracle: SELECT o.order_id, c.name FROM orders o JOIN customers c ON o.user_id = c.user_id
SELECT /*+ SHUFFLE_HASH(o) */ o.order_id, c.name FROM orders o JOIN customers c ON o.user_id = c.user_id;
