-- Functions > String: REGEXP, REGEXP_EXTRACT, REGEXP_REPLACE
-- oracle: VALUES (1, '42', 'a#b#')
SELECT REGEXP('abc123', '[0-9]+'), REGEXP_EXTRACT('id=42;', 'id=([0-9]+)', 1), REGEXP_REPLACE('a1b2', '[0-9]', '#');
