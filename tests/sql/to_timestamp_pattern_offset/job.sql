-- TO_TIMESTAMP and TO_DATE with a pattern that reads a zone offset keep the
-- wall time the text names and drop the offset, as Flink's TO_TIMESTAMP
-- takes the fields of the text (weir moved the time from the text's offset
-- into the session zone: 2024-01-01 00:00:00 +0800 became 2023-12-31
-- 16:00:00 in UTC). UNIX_TIMESTAMP still reads the instant the offset names.
SET 'table.local-time-zone' = 'UTC';
CREATE TABLE o (a STRING, b STRING, c STRING, d BIGINT) WITH ('connector' = 'print');
INSERT INTO o SELECT
  CAST(TO_TIMESTAMP('2024-01-01 00:00:00 +0800', 'yyyy-MM-dd HH:mm:ss Z') AS STRING),
  CAST(TO_TIMESTAMP('2024-01-01T05:06:07.089-03:00', 'yyyy-MM-dd''T''HH:mm:ss.SSSXXX') AS STRING),
  CAST(TO_DATE('2024-01-01 01:00 GMT+05:00', 'yyyy-MM-dd HH:mm z') AS STRING),
  UNIX_TIMESTAMP('1970-01-01 08:00:00 +0800', 'yyyy-MM-dd HH:mm:ss Z');
