-- Queries > Deduplication: keep the last row per key by processing time
-- oracle: SELECT o.order_id, o.user_id FROM orders o WHERE o.order_id = (SELECT MAX(order_id) FROM orders p WHERE p.user_id = o.user_id)
SELECT order_id, user_id FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY user_id ORDER BY pt DESC) AS rn FROM orders_pt) WHERE rn = 1;
