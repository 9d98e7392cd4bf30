-- The zone offset letters in a session zone of +05:30: X writes the hours
-- only (+05), XX and XXXX +0530, XXX and XXXXX +05:30 (weir wrote XXXX as
-- +05:30), Z of any count +0530, z of any count GMT+05:30 (UTC at offset
-- zero); each parses back to the same instant.
SET 'table.local-time-zone' = 'Asia/Kolkata';
CREATE TABLE o (a STRING, b STRING, c BIGINT, d BIGINT, e BIGINT) WITH ('connector' = 'print');
INSERT INTO o SELECT
  DATE_FORMAT(TO_TIMESTAMP_LTZ(0, 3), 'X|XX|XXX|XXXX|XXXXX|Z|ZZZZZ|z|zzzz'),
  FROM_UNIXTIME(0, 'XXXX XXXXX'),
  UNIX_TIMESTAMP('1970-01-01 05:30:00+0530', 'yyyy-MM-dd HH:mm:ssXXXX'),
  UNIX_TIMESTAMP('1970-01-01 05:30:00 GMT+05:30', 'yyyy-MM-dd HH:mm:ss zzzz'),
  UNIX_TIMESTAMP('1970-01-01 00:00:00 UTC', 'yyyy-MM-dd HH:mm:ss z');
