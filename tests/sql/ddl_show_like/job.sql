-- SHOW COLUMNS FROM / IN a table or view, and SHOW TABLES / VIEWS, with
-- [NOT] LIKE (case-sensitive; % any run, _ one character, \ escapes) and
-- ILIKE (case-insensitive) patterns, as Flink's.
CREATE TABLE orders (id BIGINT, product STRING, prod_x INT, amount INT) WITH ('connector' = 'datagen');
CREATE TABLE Order_log (a INT) WITH ('connector' = 'datagen');
CREATE VIEW ov AS SELECT id, product FROM orders;
SHOW COLUMNS FROM orders LIKE 'prod%';
SHOW COLUMNS IN orders NOT LIKE '%o%';
SHOW COLUMNS FROM orders LIKE 'prod\_x';
SHOW COLUMNS FROM ov ILIKE 'PRO%';
SHOW TABLES LIKE 'ord%';
SHOW TABLES ILIKE 'ord%';
SHOW VIEWS NOT LIKE 'o_';
SHOW TABLES LIKE '_rders';
