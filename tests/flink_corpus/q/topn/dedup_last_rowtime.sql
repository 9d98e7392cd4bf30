-- Queries > Deduplication: keep the last row per key by event time
-- oracle: SELECT order_id, user_id FROM orders o WHERE order_time = (SELECT MAX(order_time) FROM orders p WHERE p.user_id = o.user_id)
SELECT order_id, user_id FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY user_id ORDER BY order_time DESC) AS rn FROM orders) WHERE rn = 1;
