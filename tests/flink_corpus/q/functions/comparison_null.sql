-- Functions > Comparison: comparisons with NULL (three-valued) and IS NULL
-- oracle: VALUES (NULL, 1, 0)
SELECT CAST(NULL AS INT) = 1, CAST(NULL AS STRING) IS NULL, 'x' IS NULL;
