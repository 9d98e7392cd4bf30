-- Queries > Hints > Join Hints: BROADCAST (batch-only in Flink; ignored in streaming)
-- oracle: SELECT o.order_id, c.name FROM orders o JOIN customers c ON o.user_id = c.user_id
SELECT /*+ BROADCAST(c) */ o.order_id, c.name FROM orders o JOIN customers c ON o.user_id = c.user_id;
