-- Queries > Joins > Temporal Joins: event-time temporal join against a versioned table
-- oracle: SELECT o.order_id, (SELECT r.rate FROM rates r WHERE r.currency = o.currency AND r.rate_time <= o.order_time ORDER BY r.rate_time DESC LIMIT 1) FROM orders o WHERE o.currency IN (SELECT currency FROM rates)
SELECT o.order_id, r.rate FROM orders AS o JOIN rates FOR SYSTEM_TIME AS OF o.order_time AS r ON o.currency = r.currency;
