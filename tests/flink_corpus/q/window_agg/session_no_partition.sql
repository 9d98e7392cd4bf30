-- Queries > Window Aggregation: SESSION window without PARTITION BY (one global session stream)
-- oracle: VALUES ('2024-01-01 12:00:00', '2024-01-01 12:04:40', 5), ('2024-01-01 12:05:30', '2024-01-01 12:08:00', 2), ('2024-01-01 12:09:00', '2024-01-01 12:11:20', 2)
SELECT window_start, window_end, COUNT(*) FROM TABLE(SESSION(TABLE clicks, DESCRIPTOR(ctime), INTERVAL '2' MINUTES)) GROUP BY window_start, window_end;
