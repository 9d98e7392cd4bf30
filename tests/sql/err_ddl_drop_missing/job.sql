-- DROP TABLE of a table that does not exist (without IF EXISTS)
CREATE TABLE orders (id INT) WITH ('connector' = 'datagen');
DROP TABLE ordres;
