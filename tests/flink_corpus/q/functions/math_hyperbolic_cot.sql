-- Functions > Arithmetic: SINH, COSH, TANH, COT, ASIN, ACOS, ATAN
-- oracle: VALUES (0.0, 1.0, 0.0, 0.0, 0.0, 0.0)
SELECT SINH(0), COSH(0), TANH(0), ASIN(0), ACOS(1), ATAN(0);
