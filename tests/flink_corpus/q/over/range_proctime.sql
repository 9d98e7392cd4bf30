-- Queries > Over Aggregation: RANGE interval over processing time
-- mode: explain
SELECT order_id, COUNT(*) OVER (PARTITION BY user_id ORDER BY pt RANGE BETWEEN INTERVAL '1' MINUTE PRECEDING AND CURRENT ROW) FROM orders_pt;
