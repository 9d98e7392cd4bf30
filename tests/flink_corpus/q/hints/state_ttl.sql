-- Queries > Hints: STATE_TTL on a join
-- oracle: SELECT o.order_id, c.name FROM orders o JOIN customers c ON o.user_id = c.user_id
SELECT /*+ STATE_TTL('o' = '1d', 'c' = '12h') */ o.order_id, c.name FROM orders o JOIN customers c ON o.user_id = c.user_id;
