-- PRINTF %g of a DECIMAL rounds (half up) to the precision's significant
-- digits before choosing fixed or scientific, as Java's Formatter does:
-- 999.50 at 3 digits is 1.00e+03 (1000 is not below 10^3), 0.000099996 is
-- 0.000100 (now 10^-4), 9.96 at 2 digits is 10, 99.95 at 3 is 100, and
-- 999999.5 at the default 6 is 1.00000e+06. Expected rows checked against
-- Java 17's String.format with BigDecimal arguments.
CREATE TABLE o (s STRING) WITH ('connector' = 'print');
INSERT INTO o
SELECT PRINTF('%.3g|%g|%.2g|%.1g|%.0g', x, x, x, x, x)
FROM (VALUES (CAST(999.50 AS DECIMAL(10, 2))), (CAST(0.000099996 AS DECIMAL(12, 9))),
             (CAST(999999.5 AS DECIMAL(10, 1))), (CAST(9.96 AS DECIMAL(5, 2))), (CAST(99.95 AS DECIMAL(5, 2))),
             (CAST(0.0000999 AS DECIMAL(10, 7))), (CAST(1234567 AS DECIMAL(10, 0)))) AS t(x);
