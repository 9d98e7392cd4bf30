-- A minus before a number is part of the literal, as Calcite's parser makes
-- it: -2147483648 is an INT (2147483648 alone is a BIGINT) and
-- -9223372036854775808 a BIGINT (not a DECIMAL(19, 0)), so arithmetic on
-- them wraps as Java's int and long do, and either is a literal seed for
-- RAND. Expected, by hand: INT_MIN - 1 wraps to 2147483647 (it was the
-- BIGINT -2147483649), BIGINT_MIN - 1 to 9223372036854775807; -2147483649
-- stays a BIGINT, -1.50 a DECIMAL(3, 2); - -2147483648 negates an INT
-- (wraps to itself); java.util.Random(-2147483648)'s first nextDouble is
-- 0.37980963831837855 and first nextInt(10) is 2 (computed with a model of
-- java.util.Random); RAND(-2147483648) was refused ("the seed of RAND must
-- be a literal").
SELECT TYPEOF(-2147483648), -2147483648 - 1, TYPEOF(-9223372036854775808), -9223372036854775808 - 1,
  TYPEOF(-2147483649), TYPEOF(-1.50), - -2147483648, RAND(-2147483648), RAND_INTEGER(-2147483648, 10);
