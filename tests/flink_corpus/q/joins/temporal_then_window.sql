-- Queries > Joins > Temporal Joins: a window aggregation over the temporal join's result
-- oracle: SELECT tumble(o.order_time, 20), COUNT(*) FROM orders o WHERE o.currency IN (SELECT currency FROM rates) GROUP BY 1
CREATE VIEW conv AS SELECT o.order_id, o.order_time, r.rate FROM orders AS o JOIN rates FOR SYSTEM_TIME AS OF o.order_time AS r ON o.currency = r.currency;
SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE conv, DESCRIPTOR(order_time), INTERVAL '20' SECOND)) GROUP BY window_start, window_end;
