-- Queries > Joins > Temporal Joins: LEFT temporal join, price converted
-- oracle: SELECT o.order_id, o.price * (SELECT r.rate FROM rates r WHERE r.currency = o.currency AND r.rate_time <= o.order_time ORDER BY r.rate_time DESC LIMIT 1) FROM orders o
SELECT o.order_id, o.price * r.rate FROM orders AS o LEFT JOIN rates FOR SYSTEM_TIME AS OF o.order_time AS r ON o.currency = r.currency;
