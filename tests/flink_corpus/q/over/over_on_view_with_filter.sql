-- Queries > Over Aggregation over a filtered view, ORDER BY rowtime with ROWS UNBOUNDED
-- oracle: SELECT order_id, MAX(amount) OVER (PARTITION BY currency ORDER BY order_time ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM orders WHERE amount IS NOT NULL
CREATE VIEW ok AS SELECT * FROM orders WHERE amount IS NOT NULL;
SELECT order_id, MAX(amount) OVER (PARTITION BY currency ORDER BY order_time ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM ok;
