-- Configuration > table.exec.state.ttl on a group aggregation
-- oracle: SELECT product, COUNT(*) FROM orders GROUP BY product
SET 'table.exec.state.ttl' = '1 h';
SELECT product, COUNT(*) FROM orders GROUP BY product;
