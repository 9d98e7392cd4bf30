-- Queries > SELECT & WHERE: inline VALUES table with column aliases
-- oracle: VALUES (1, 'x'), (2, 'y')
SELECT id, name FROM (VALUES (1, 'x'), (2, 'y')) AS t(id, name);
