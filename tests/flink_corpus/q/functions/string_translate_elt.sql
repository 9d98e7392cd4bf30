-- Functions > String: TRANSLATE, ELT, PRINTF
-- oracle: VALUES ('x2c', 'b', 'n=5')
SELECT TRANSLATE('abc', 'ab', 'x2'), ELT(2, 'a', 'b', 'c'), PRINTF('n=%d', 5);
