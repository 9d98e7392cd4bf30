-- Functions > Type Conversion: CAST between numbers, strings, timestamps, dates
-- oracle: VALUES (42, '3.5', '2024-01-02 03:04:05', '2024-01-02', 1, 12.35)
SELECT CAST('42' AS INT), CAST(3.5 AS STRING), CAST('2024-01-02 03:04:05' AS TIMESTAMP(3)), CAST(TIMESTAMP '2024-01-02 03:04:05' AS DATE), CAST('true' AS BOOLEAN), CAST(12.345 AS DECIMAL(5, 2));
