-- a view naming more columns than its query has is an error at CREATE VIEW
CREATE TABLE orders (id INT, amount INT) WITH ('connector' = 'datagen');
CREATE VIEW v (a, b, c) AS SELECT id, amount FROM orders;
