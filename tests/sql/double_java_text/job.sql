-- DOUBLE as text follows Java 17 exactly: CAST(d AS STRING) and the print
-- connector are Double.toString, PRINTF %s is String.valueOf and %e rounds
-- the JDK's digits (not the shortest ones that read back). Java 17's
-- digit loop gives 4.9E-324 (two digits in E-form, the nearer), prints the
-- double nearest 1e23 as 9.999999999999999E22 and some values with a
-- digit more than needed (9.9999999999999984E16, 1.00000000000000013E18).
-- Expected rows printed by Java 17 (Double.parseDouble of the text, then
-- Double.toString and String.format("%s|%e|%.1e|%.17e")).
CREATE TABLE o (s STRING, a STRING, b STRING, d DOUBLE) WITH ('connector' = 'print');
INSERT INTO o
SELECT s, CAST(d AS STRING), PRINTF('%s|%e|%.1e|%.17e', d, d, d, d), d
FROM (SELECT s, CAST(s AS DOUBLE) AS d
      FROM (VALUES ('4.9E-324'), ('1e23'), ('9.9999999999999984E16'), ('1.00000000000000013E18'), ('2.0E-3'),
                   ('1.58E-322'), ('2.2250738585072014E-308'), ('1.7976931348623157E308'), ('9.223372036854776E18'),
                   ('0.001'), ('1.0E7'), ('1.0E-5')) AS v(s));
