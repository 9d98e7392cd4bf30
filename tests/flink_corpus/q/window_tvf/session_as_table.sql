-- Queries > Windowing TVF: SESSION as a table (Flink refuses it without aggregation too)
-- flink-refuses
SELECT * FROM TABLE(SESSION(TABLE clicks PARTITION BY user_name, DESCRIPTOR(ctime), INTERVAL '2' MINUTES));
