-- Queries > Hints: dynamic table options /*+ OPTIONS(...) */
-- oracle: SELECT order_id FROM orders WHERE amount > 5
SELECT order_id FROM orders /*+ OPTIONS('csv.ignore-parse-errors' = 'true') */ WHERE amount > 5;
