-- Queries > SELECT & WHERE: LIKE pattern filter
-- oracle: SELECT url FROM clicks WHERE url LIKE './prod%'
SELECT url FROM clicks WHERE url LIKE './prod%';
