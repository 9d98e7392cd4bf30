-- Functions > String: SUBSTRING_INDEX, BTRIM, LTRIM, RTRIM
-- oracle: VALUES ('a.b', 'x', 'x ', ' x')
SELECT SUBSTRING_INDEX('a.b.c', '.', 2), BTRIM('  x  '), LTRIM(' x '), RTRIM(' x ');
