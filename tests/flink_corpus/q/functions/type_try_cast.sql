-- Functions > Type Conversion: TRY_CAST returns NULL on failure
-- oracle: VALUES (NULL, 7)
SELECT TRY_CAST('x' AS INT), TRY_CAST('7' AS INT);
