-- Functions > Collection: SPLIT of a string into an ARRAY
-- oracle: VALUES ('[a, b, c]')
SELECT SPLIT('a;b;c', ';');
