-- RESET without a key
-- oracle: SELECT COUNT(*) FROM orders
SET 'table.exec.state.ttl' = '1 h';
RESET;
SELECT COUNT(*) FROM orders;
