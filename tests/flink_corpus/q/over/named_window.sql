-- Queries > Over Aggregation: WINDOW clause shared by several aggregates
-- oracle: SELECT order_id, MIN(price) OVER w, MAX(price) OVER w, COUNT(*) OVER w FROM orders WINDOW w AS (PARTITION BY currency ORDER BY order_time ROWS BETWEEN 2 PRECEDING AND CURRENT ROW)
SELECT order_id, MIN(price) OVER w, MAX(price) OVER w, COUNT(*) OVER w FROM orders WINDOW w AS (PARTITION BY currency ORDER BY order_time ROWS BETWEEN 2 PRECEDING AND CURRENT ROW);
