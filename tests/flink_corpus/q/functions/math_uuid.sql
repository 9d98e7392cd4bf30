-- Functions > Arithmetic: UUID() (36 characters)
-- oracle: VALUES (36)
SELECT CHAR_LENGTH(UUID());
