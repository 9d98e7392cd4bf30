-- EXTRACT units Flink accepts: ISOYEAR (the ISO week-numbering year, the
-- year of the week's Thursday) of a TIMESTAMP, a DATE and a TIMESTAMP_LTZ
-- (in the session zone), and QUARTER / CENTURY / MILLENNIUM of a
-- year-month interval (Flink: QUARTER is ((months % 12) - 1) / 3 + 1 with
-- Java's truncating division, CENTURY months / 1200, MILLENNIUM months /
-- 12000).
-- 2024-12-30 is the Monday of week 1 of 2025; 2021-01-03 is the Sunday of
-- week 53 of 2020; 2021-01-03T23:30Z is Monday 2021-01-04 00:30 in Berlin.
SET 'table.local-time-zone' = 'Europe/Berlin';
SELECT EXTRACT(ISOYEAR FROM TIMESTAMP '2024-12-30 00:00:00'),
       EXTRACT(ISOYEAR FROM DATE '2021-01-03'),
       EXTRACT(ISOYEAR FROM DATE '2021-01-04'),
       EXTRACT(ISOYEAR FROM TO_TIMESTAMP_LTZ(1609716600000, 3)),
       EXTRACT(ISOYEAR FROM CAST(TO_TIMESTAMP_LTZ(1609716600000, 3) AS TIMESTAMP) - INTERVAL '1' HOUR),
       EXTRACT(QUARTER FROM INTERVAL '7' MONTH),
       EXTRACT(QUARTER FROM INTERVAL '2-11' YEAR TO MONTH),
       EXTRACT(QUARTER FROM INTERVAL '-7' MONTH),
       EXTRACT(QUARTER FROM INTERVAL '0' MONTH),
       EXTRACT(CENTURY FROM INTERVAL '250' YEAR(3)),
       EXTRACT(MILLENNIUM FROM INTERVAL '2500' YEAR(4));
