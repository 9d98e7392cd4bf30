-- DROP DATABASE ... CASCADE drops its tables; SHOW DATABASES / SHOW TABLES FROM
CREATE DATABASE scratch WITH ('owner' = 'etl');
CREATE TABLE scratch.tmp (a INT) WITH ('connector' = 'datagen');
ALTER DATABASE scratch SET ('owner' = 'ops');
SHOW TABLES FROM scratch;
DROP DATABASE scratch CASCADE;
SHOW DATABASES;
