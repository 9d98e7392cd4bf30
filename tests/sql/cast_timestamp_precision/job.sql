-- CAST to TIMESTAMP(p) or TIMESTAMP_LTZ(p) with p below 3 cuts the fraction
-- of the second to p digits, toward the past, as Flink's CAST does from
-- 1970 on (before it, Flink's cast of a TIMESTAMP value moves its
-- milliseconds toward zero, a difference docs/functions.md names; weir
-- stays toward the past): GROUP BY CAST(ts AS TIMESTAMP(0)) groups per
-- second. From a text, a TIMESTAMP and a TIMESTAMP_LTZ (in a session zone
-- that is not UTC); TRY_CAST alike; TIMESTAMP(3) and TIMESTAMP without a
-- precision (Flink's 6) keep the milliseconds. Shared subexpressions must
-- keep CAST(x AS TIMESTAMP(0)) and CAST(x AS TIMESTAMP(1)) apart.
SET 'table.local-time-zone' = 'Asia/Kolkata';
CREATE TEMPORARY VIEW v AS
SELECT * FROM (VALUES
  (TIMESTAMP '2024-01-01 10:00:00.987', '2024-02-29 23:59:59.999'),
  (TIMESTAMP '1969-12-31 23:59:59.5', '1969-12-31 23:59:58.001'),
  (TIMESTAMP '2024-01-01 10:00:00.000', '2024-01-01 10:00:00')) AS t(ts, s);
SELECT CAST(ts AS TIMESTAMP(0)) AS p0,
       CAST(ts AS TIMESTAMP(1)) AS p1,
       CAST(ts AS TIMESTAMP(2)) AS p2,
       CAST(ts AS TIMESTAMP(3)) AS p3,
       CAST(ts AS TIMESTAMP) AS p6,
       CAST(s AS TIMESTAMP(0)) AS s0,
       TRY_CAST(s AS TIMESTAMP(1)) AS s1,
       CAST(CAST(ts AS TIMESTAMP_LTZ(3)) AS TIMESTAMP_LTZ(0)) AS l0,
       CAST(CAST(ts AS TIMESTAMP_LTZ(0)) AS STRING) AS l0s,
       EXTRACT(MILLISECOND FROM CAST(ts AS TIMESTAMP(0))) AS ms0
FROM v;
SELECT CAST(s AS TIMESTAMP(0)) AS sec, COUNT(*) AS n
FROM (VALUES ('2024-01-01 10:00:00.100'), ('2024-01-01 10:00:00.900'),
             ('2024-01-01 10:00:01.000')) AS t(s)
GROUP BY CAST(s AS TIMESTAMP(0));
