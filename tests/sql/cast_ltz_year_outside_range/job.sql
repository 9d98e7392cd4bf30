-- An instant outside years 0000-9999 can come from TO_TIMESTAMP_LTZ(text,
-- fmt, zone), which holds only the wall time to that range. Printed, a year
-- before 0000 keeps four digits after its sign (-0001; it printed -001), and
-- year 10000 prints all five digits. 0000-01-01 00:00 in Tokyo (local mean
-- time, +09:18:59) is -0001-12-31 14:41:01 UTC; year 0 is a leap year.
SET 'table.local-time-zone' = 'UTC';
CREATE TABLE o (a STRING, b STRING, c BIGINT, d STRING) WITH ('connector' = 'print');
INSERT INTO o SELECT
  CAST(TO_TIMESTAMP_LTZ('0000-01-01 00:00:00', 'yyyy-MM-dd HH:mm:ss', 'Asia/Tokyo') AS STRING),
  CAST(TO_TIMESTAMP_LTZ('9999-12-31 23:59:59', 'yyyy-MM-dd HH:mm:ss', 'America/New_York') AS STRING),
  CAST(TO_TIMESTAMP_LTZ('0000-01-01 00:00:00', 'yyyy-MM-dd HH:mm:ss', 'Asia/Tokyo') AS BIGINT),
  CAST(TO_TIMESTAMP_LTZ('0000-03-01 00:00:00', 'yyyy-MM-dd HH:mm:ss', 'Asia/Tokyo') AS STRING);
