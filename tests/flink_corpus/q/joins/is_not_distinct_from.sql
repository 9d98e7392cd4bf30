-- Queries > Joins: IS NOT DISTINCT FROM as the join key (NULL meets NULL)
-- oracle: SELECT a.order_id, b.order_id FROM orders a JOIN orders b ON a.amount IS b.amount AND a.order_id < b.order_id
SELECT a.order_id, b.order_id FROM orders a JOIN orders b ON a.amount IS NOT DISTINCT FROM b.amount AND a.order_id < b.order_id;
