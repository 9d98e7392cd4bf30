-- Queries > Over Aggregation: COUNT(DISTINCT) in an OVER window
-- oracle: SELECT order_id, (SELECT COUNT(DISTINCT o2.product) FROM orders o2 WHERE o2.user_id = o.user_id AND o2.order_time <= o.order_time) FROM orders o
SELECT order_id, COUNT(DISTINCT product) OVER (PARTITION BY user_id ORDER BY order_time) FROM orders;
