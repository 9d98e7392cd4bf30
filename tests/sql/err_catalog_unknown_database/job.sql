-- a qualified name whose database does not exist: located at that part
CREATE DATABASE shop;
CREATE TABLE shop.orders (id INT) WITH ('connector' = 'datagen');
SELECT id FROM shopp.orders;
