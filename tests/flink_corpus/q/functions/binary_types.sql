-- Types: BYTES / VARBINARY literals and functions
-- oracle: VALUES (2)
SELECT CHAR_LENGTH(CAST(X'6869' AS STRING));
