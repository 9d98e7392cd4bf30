-- Functions > String: IS_ALPHA, IS_DIGIT, IS_DECIMAL
-- oracle: VALUES (1, 1, 1)
SELECT IS_ALPHA('abc'), IS_DIGIT('123'), IS_DECIMAL('1.5');
