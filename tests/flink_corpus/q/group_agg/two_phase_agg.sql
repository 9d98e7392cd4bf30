-- Configuration > table.optimizer.agg-phase-strategy TWO_PHASE (local-global aggregation)
-- oracle: SELECT product, COUNT(*) FROM orders GROUP BY product
SET 'table.exec.mini-batch.enabled' = 'true';
SET 'table.optimizer.agg-phase-strategy' = 'TWO_PHASE';
SELECT product, COUNT(*) FROM orders GROUP BY product;
