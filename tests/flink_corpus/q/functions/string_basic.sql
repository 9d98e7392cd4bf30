-- Functions > String: ||, CHAR_LENGTH, UPPER, LOWER, POSITION, TRIM
-- oracle: VALUES ('ab', 5, 'ABC', 'abc', 2, 'x', 'x  ', '  x')
SELECT 'a' || 'b', CHAR_LENGTH('hello'), UPPER('abc'), LOWER('ABC'), POSITION('b' IN 'abc'), TRIM('  x  '), TRIM(LEADING FROM '  x  '), TRIM(TRAILING FROM '  x  ');
