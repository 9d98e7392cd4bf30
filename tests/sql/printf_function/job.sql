-- PRINTF: Java's java.util.Formatter (Locale.US) over the SQL values, as
-- Flink's PRINTF. Expected rows derived by hand from Java's rules: %d of an
-- INT with width, '0', '+', ',' and '(' flags; %x/%o of a negative number is
-- its two's complement (32 bits for INT, 64 for BIGINT); %f/%e round the
-- shortest decimal of the DOUBLE half-up (0.125 -> 0.13 at two places) and a
-- DECIMAL's exact digits half-up (-0.005 -> -0.01); %g is fixed between
-- 10^-4 and 10^precision, scientific outside; %s of a DOUBLE is
-- Double.toString (-2.5E-5); a NULL argument prints "null" ("false" for
-- %b); a conversion that does not fit its argument (%d of a DOUBLE), a
-- missing argument and an unknown conversion give NULL, as does a NULL
-- format.
CREATE TABLE t (id INT, n INT, big BIGINT, x DOUBLE, amt DECIMAL(10, 3), s STRING, b BOOLEAN, f STRING)
  WITH ('connector' = 'filesystem', 'path' = 't.json', 'format' = 'json');

SELECT id, PRINTF('[%5d|%-5d|%05d|%+d|%,d|%(d]', n, n, n, n, n * 100000, n),
       PRINTF('%x %X %o %#x', n, big, n, big),
       PRINTF('%.2f|%10.3e|%g|%s', x, x, x, x),
       PRINTF('%.2f|%,.1f|%e|%G', amt, amt, amt, amt),
       PRINTF('%s/%S/%.3s/%-4s|%b %b', s, s, s, s, b, s)
FROM t;

SELECT id, PRINTF(f, s, n), PRINTF('%d', x), PRINTF('%s %s', s), PRINTF('%q', n), PRINTF('%c%c', 72, n + 63)
FROM t;

SELECT PRINTF('%2$s-%1$s-%<s', 'a', 'b'), PRINTF('%5%|%-3%|'), PRINTF('Hello World %d %s', 100, 'days'),
       PRINTF('%.1f %.1f %.0f %.0f', 0.25e0, 0.35e0, 0.5e0, 1.5e0), PRINTF('%s %e', CAST('NaN' AS DOUBLE), -1e300),
       PRINTF('%08.2f', CAST('-Infinity' AS DOUBLE)), PRINTF('no args'), PRINTF('%s', DATE '2024-02-29');
