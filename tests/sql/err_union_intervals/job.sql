-- Intervals of different kinds do not widen in a set operation (a day-time
-- and a year-month interval have no common type): refused by name.
CREATE TABLE o (x STRING) WITH ('connector' = 'print');
CREATE VIEW u AS SELECT INTERVAL '1' DAY AS iv UNION ALL SELECT INTERVAL '2' MONTH AS iv;
INSERT INTO o SELECT CAST(TIMESTAMP '2024-01-01 00:00:00' + iv AS STRING) FROM u;
