-- Queries > Window Aggregation: SESSION window with PARTITION BY
-- oracle: VALUES ('Mary', '2024-01-01 12:00:00', '2024-01-01 12:03:10', 2), ('Mary', '2024-01-01 12:05:30', '2024-01-01 12:07:30', 1), ('Mary', '2024-01-01 12:09:20', '2024-01-01 12:11:20', 1),
-- oracle: ('Bob', '2024-01-01 12:00:30', '2024-01-01 12:02:30', 1), ('Bob', '2024-01-01 12:02:40', '2024-01-01 12:04:40', 1), ('Bob', '2024-01-01 12:09:00', '2024-01-01 12:11:00', 1),
-- oracle: ('Liz', '2024-01-01 12:02:00', '2024-01-01 12:04:00', 1), ('Liz', '2024-01-01 12:06:00', '2024-01-01 12:08:00', 1)
SELECT user_name, window_start, window_end, COUNT(*) FROM TABLE(SESSION(TABLE clicks PARTITION BY user_name, DESCRIPTOR(ctime), INTERVAL '2' MINUTES)) GROUP BY user_name, window_start, window_end;
