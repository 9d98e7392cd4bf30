-- ALTER TABLE ... RENAME TO keeps the table in its database
CREATE DATABASE shop;
CREATE TABLE t (id INT) WITH ('connector' = 'datagen');
ALTER TABLE t RENAME TO shop.t;
