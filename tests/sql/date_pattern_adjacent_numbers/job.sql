-- A number in a parsed pattern takes exactly its letters' width only when
-- another number follows it: u and w are numbers (weir let dd read the
-- digit of u as well, then found none for u), a month name (MMM) is not
-- (weir made d take one digit of 15Jan).
CREATE TABLE o (a STRING, b STRING, c STRING, d STRING) WITH ('connector' = 'print');
INSERT INTO o SELECT
  CAST(TO_TIMESTAMP('15Jan2024', 'dMMMyyyy') AS STRING),
  CAST(TO_DATE('2024-01-055', 'yyyy-MM-ddu') AS STRING),
  CAST(TO_DATE('2024-01-0501', 'yyyy-MM-ddww') AS STRING),
  CAST(TO_DATE('20240105', 'yyyyMMdd') AS STRING);
