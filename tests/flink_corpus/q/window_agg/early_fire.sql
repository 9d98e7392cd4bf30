-- Configuration > table.exec.emit.early-fire (window aggregation with early firing)
-- oracle: SELECT tumble(bidtime, 600), SUM(price) FROM bids GROUP BY 1
SET 'table.exec.emit.early-fire.enabled' = 'true';
SET 'table.exec.emit.early-fire.delay' = '1 s';
SELECT window_start, SUM(price) FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES)) GROUP BY window_start, window_end;
