-- CREATE VIEW plans its query where it is written, as Flink validates it:
-- a table that does not exist is an error at the CREATE VIEW, not where
-- the view is used
CREATE TABLE orders (id INT, amount INT) WITH ('connector' = 'datagen');
CREATE VIEW big AS SELECT id FROM ordrs WHERE amount > 10;
