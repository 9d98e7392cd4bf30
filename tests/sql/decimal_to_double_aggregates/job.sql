-- A DECIMAL of up to 18 digits whose unscaled value passes 2^53 reaches
-- the variance and percentile aggregates as the double nearest it, as a
-- CAST gives it (Java's BigDecimal.doubleValue). The variance functions
-- once divided the unscaled value, itself rounded to a double, by 10^scale,
-- rounding twice: 12345678901234.567 became 12345678901234.568. Worked by
-- hand (Python's float(Decimal(text))): group 1 holds that value and 0, so
-- its population standard deviation times 2 is the value itself; group 2
-- one value, whose deviation is 0.
CREATE TABLE t (k INT, d DECIMAL(18, 3)) WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
CREATE TABLE o (k INT, sd2 DOUBLE, p DOUBLE, mx DOUBLE) WITH ('connector' = 'print', 'print-identifier' = 'o');
INSERT INTO o SELECT k, STDDEV_POP(d) * 2, PERCENTILE(d, 1.0), CAST(MAX(d) AS DOUBLE) FROM t GROUP BY k;
