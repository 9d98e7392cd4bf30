-- Queries > Over Aggregation: a frame that ends after CURRENT ROW (refused by Flink too)
-- flink-refuses
SELECT order_id, SUM(amount) OVER (PARTITION BY user_id ORDER BY order_time ROWS BETWEEN CURRENT ROW AND 1 FOLLOWING) FROM orders;
