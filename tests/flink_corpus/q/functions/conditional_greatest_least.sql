-- Functions > Conditional: GREATEST, LEAST, IFNULL, IS_NULL-style NVL
-- oracle: VALUES (9, 1, 5)
SELECT GREATEST(3, 9, 4), LEAST(3, 1, 4), IFNULL(CAST(NULL AS INT), 5);
