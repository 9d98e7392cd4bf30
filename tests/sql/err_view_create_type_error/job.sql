-- a type error in a view's query is an error at CREATE VIEW (IF NOT EXISTS
-- too: the query is checked first, as in Flink)
CREATE TABLE orders (id INT, note STRING) WITH ('connector' = 'datagen');
CREATE VIEW IF NOT EXISTS v AS SELECT id FROM orders WHERE note;
