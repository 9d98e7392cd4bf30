-- SHOW FUNCTIONS lists the functions a query can call by name, sorted;
-- LIKE / NOT LIKE / ILIKE filter it; SHOW USER FUNCTIONS lists the
-- user-defined ones (none in a script that creates none); FROM a database
-- checks that it exists (functions are in no database).
CREATE DATABASE db;
SHOW FUNCTIONS LIKE 'REGEXP%';
SHOW FUNCTIONS FROM db ILIKE '%_rank';
SHOW FUNCTIONS LIKE 'TUMBLE%' ;
SHOW USER FUNCTIONS;
SHOW FUNCTIONS LIKE 'IS%';
