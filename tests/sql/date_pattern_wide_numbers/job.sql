-- A number letter repeated past four times parses the digits it writes:
-- DATE_FORMAT(ts, 'ddddd') writes 00012, so TO_TIMESTAMP, TO_DATE and
-- UNIX_TIMESTAMP with that pattern read all five digits back (weir read
-- four and then found a digit left over: NULL / Long.MIN_VALUE). A number
-- next to another number still takes exactly its letters' width.
SET 'table.local-time-zone' = 'UTC';
CREATE TABLE o (a STRING, b STRING, c STRING, d BIGINT, e STRING, g STRING) WITH ('connector' = 'print');
INSERT INTO o SELECT
  DATE_FORMAT(TIMESTAMP '2024-03-12 05:06:07.089', 'MM/ddddd HHHHH:mmmmm:sssss.SSSSS'),
  CAST(TO_TIMESTAMP('03/00012 00005:00006:00007.08900', 'MM/ddddd HHHHH:mmmmm:sssss.SSSSS') AS STRING),
  CAST(TO_DATE('2024-03-00012', 'yyyy-MM-ddddd') AS STRING),
  UNIX_TIMESTAMP('02024-00072 00001', 'yyyyy-DDDDD kkkkk'),
  CAST(TO_TIMESTAMP('2024031205', 'yyyyMMddHH') AS STRING),
  CAST(TO_TIMESTAMP('000000012', 'ddddd') AS STRING);
