-- Configuration > table.exec.mini-batch.enabled with a group aggregation
-- oracle: SELECT product, SUM(amount) FROM orders GROUP BY product
SET 'table.exec.mini-batch.enabled' = 'true';
SET 'table.exec.mini-batch.allow-latency' = '5 s';
SET 'table.exec.mini-batch.size' = '1000';
SELECT product, SUM(amount) FROM orders GROUP BY product;
