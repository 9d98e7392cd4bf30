-- DROP DATABASE is RESTRICT unless CASCADE: a database with a table stays
CREATE DATABASE shop;
CREATE TABLE shop.orders (id INT) WITH ('connector' = 'datagen');
DROP DATABASE shop;
