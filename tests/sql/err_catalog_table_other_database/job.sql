-- a table exists in one database only: naming it in another is an error,
-- whatever its last part says
CREATE DATABASE db1; CREATE DATABASE db2;
CREATE TABLE db1.orders (id INT) WITH ('connector' = 'datagen');
SELECT id FROM db2.orders;
