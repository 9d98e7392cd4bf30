-- Functions > Arithmetic: + - * / %, MOD, ABS, unary minus
-- oracle: VALUES (5, -1, 6, 3, 1, 2, 7, -4)
SELECT 2 + 3, 2 - 3, 2 * 3, 7 / 2, 7 % 2, MOD(17, 5), ABS(-7), -(4);
