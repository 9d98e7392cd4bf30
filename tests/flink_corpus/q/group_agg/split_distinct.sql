-- Configuration > table.optimizer.distinct-agg.split.enabled (split distinct aggregation)
-- oracle: SELECT product, COUNT(DISTINCT user_id) FROM orders GROUP BY product
SET 'table.optimizer.distinct-agg.split.enabled' = 'true';
SELECT product, COUNT(DISTINCT user_id) FROM orders GROUP BY product;
