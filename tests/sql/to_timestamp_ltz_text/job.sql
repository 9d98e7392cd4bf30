-- TO_TIMESTAMP_LTZ of a text, as Flink 2.x: the text read as TO_TIMESTAMP
-- reads it (default format, or a pattern, falling back to the default
-- format; unparsable -> NULL), and that wall time taken in UTC, whatever
-- the session zone, or in the zone named by a third argument (a gap moves
-- forward). Printed in the session zone (+08:00). Only the wall time is
-- held to years 0000 - 9999: 9999-12-31 23:59:59 in New York is an instant
-- of year 10000 in UTC (h), as in Flink, not NULL.
SET 'table.local-time-zone' = 'Asia/Shanghai';
CREATE TABLE o (a STRING, b STRING, c STRING, d STRING, e BIGINT, f STRING, g BIGINT, h BIGINT)
WITH ('connector' = 'print');
INSERT INTO o SELECT
  CAST(TO_TIMESTAMP_LTZ('2023-01-01 10:00:00') AS STRING),
  CAST(TO_TIMESTAMP_LTZ('01/01/2023 10:00:00.5', 'dd/MM/yyyy HH:mm:ss.S') AS STRING),
  CAST(TO_TIMESTAMP_LTZ('2023-01-01 10:00:00', 'yyyy-MM-dd HH:mm:ss', 'America/New_York') AS STRING),
  CAST(TO_TIMESTAMP_LTZ('junk', 'yyyy') AS STRING),
  CAST(TO_TIMESTAMP_LTZ('2024-03-10 02:30:00', 'yyyy-MM-dd HH:mm:ss', 'America/New_York') AS BIGINT),
  CAST(TO_TIMESTAMP_LTZ('1999-9-10 05:20:10', 'yyyy-MM-dd') AS STRING),
  CAST(TO_TIMESTAMP_LTZ(1000) AS BIGINT),
  CAST(TO_TIMESTAMP_LTZ('9999-12-31 23:59:59', 'yyyy-MM-dd HH:mm:ss', 'America/New_York') AS BIGINT);
