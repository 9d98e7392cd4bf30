-- Functions > Arithmetic: POWER, SQRT, EXP, LN, LOG10, LOG2, LOG(b, x)
-- oracle: VALUES (8.0, 3.0, 1.0, 0.0, 2.0, 3.0, 2.0)
SELECT POWER(2, 3), SQRT(9.0), EXP(0), LN(1), LOG10(100), LOG2(8), LOG(3, 9);
