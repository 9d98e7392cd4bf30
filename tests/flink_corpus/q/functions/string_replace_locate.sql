-- Functions > String: REPLACE, LOCATE, INSTR, ASCII, CHR
-- oracle: VALUES ('a-b-c', 3, 2, 97, 'A')
SELECT REPLACE('a.b.c', '.', '-'), LOCATE('c', 'abcabc'), INSTR('abc', 'b'), ASCII('a'), CHR(65);
