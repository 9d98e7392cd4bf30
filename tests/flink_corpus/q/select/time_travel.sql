-- Queries > Time Travel: FOR SYSTEM_TIME AS OF a timestamp literal (catalog tables in Flink)
SELECT order_id FROM orders FOR SYSTEM_TIME AS OF TIMESTAMP '2024-01-01 10:00:10';
