-- DESCRIBE a table
DESCRIBE orders;
