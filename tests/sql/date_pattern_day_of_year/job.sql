-- D (day of the year) in a parsed pattern gives the date unless a day of
-- the month (d) comes after it without a month (the later field, as
-- SimpleDateFormat), and a month with d wins over it wherever D stands (weir took D as "January, day D" when it was
-- read, so 'yyyy MM DDD dd' gave 2024-01-12 for 2024-03-12). A day of the
-- year past the year's end and a day past its month's end are unparsable
-- (weir rolled any January day up to 366 into the next months). A zone
-- name with a literal sign after it (z-HH) leaves the sign to the literal
-- (weir read it as the start of an offset and failed).
SET 'table.local-time-zone' = 'UTC';
CREATE TABLE o (a STRING, b STRING, c STRING, d STRING, e STRING, f STRING, g BIGINT, h BIGINT, i STRING,
  j STRING, k STRING)
WITH ('connector' = 'print');
INSERT INTO o SELECT
  CAST(TO_DATE('2024 03 072 12', 'yyyy MM DDD dd') AS STRING),
  CAST(TO_DATE('072-2024', 'DDD-yyyy') AS STRING),
  CAST(TO_DATE('2024-03 072', 'yyyy-MM DDD') AS STRING),
  CAST(TO_DATE('2023-366', 'yyyy-DDD') AS STRING),
  CAST(TO_DATE('1970-01-45', 'yyyy-MM-dd') AS STRING),
  CAST(TO_TIMESTAMP('2024-366 23', 'yyyy-DDD HH') AS STRING),
  UNIX_TIMESTAMP('1970-01-02 UTC-01', 'yyyy-MM-dd z-HH'),
  UNIX_TIMESTAMP('1970-01-02 GMT-01:00-01', 'yyyy-MM-dd z-HH'),
  CAST(TO_DATE('2024 03 001 12', 'yyyy MM DDD dd') AS STRING),
  CAST(TO_DATE('2024 072 05', 'yyyy DDD dd') AS STRING),
  CAST(TO_DATE('2024 05 072', 'yyyy dd DDD') AS STRING);
