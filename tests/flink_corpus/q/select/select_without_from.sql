-- Queries > SELECT without FROM (a constant row)
-- oracle: VALUES (2, 'hello')
SELECT 1 + 1, 'hello';
