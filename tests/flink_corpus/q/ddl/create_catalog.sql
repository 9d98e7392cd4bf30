-- CREATE CATALOG (generic_in_memory) and USE CATALOG
CREATE CATALOG mem WITH ('type' = 'generic_in_memory');
USE CATALOG mem;
SELECT 1;
