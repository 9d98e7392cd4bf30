-- the current database cannot be dropped (Flink neither)
CREATE DATABASE shop;
USE shop;
DROP DATABASE shop CASCADE;
