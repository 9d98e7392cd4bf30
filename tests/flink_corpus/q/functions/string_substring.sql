-- Functions > String: SUBSTRING ... FROM ... FOR, SUBSTR, LEFT, RIGHT
-- oracle: VALUES ('bcd', 'cde', 'ab', 'ef')
SELECT SUBSTRING('abcdef' FROM 2 FOR 3), SUBSTR('abcdef', 3, 3), LEFT('abcdef', 2), RIGHT('abcdef', 2);
