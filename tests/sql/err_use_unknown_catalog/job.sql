-- USE CATALOG of a catalog that does not exist
CREATE CATALOG mem WITH ('type' = 'generic_in_memory');
USE CATALOG mem2;
