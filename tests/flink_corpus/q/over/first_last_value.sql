-- Queries > Over Aggregation: FIRST_VALUE / LAST_VALUE over a ROWS frame
-- oracle: SELECT order_id, FIRST_VALUE(product) OVER w, LAST_VALUE(product) OVER w FROM orders WINDOW w AS (PARTITION BY currency ORDER BY order_time ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)
SELECT order_id, FIRST_VALUE(product) OVER w, LAST_VALUE(product) OVER w FROM orders WINDOW w AS (PARTITION BY currency ORDER BY order_time ROWS BETWEEN 1 PRECEDING AND CURRENT ROW);
