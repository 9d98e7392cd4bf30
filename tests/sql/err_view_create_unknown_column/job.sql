-- an unknown column in a view's query is an error at CREATE VIEW, located
-- in the view's text
CREATE TABLE orders (id INT, amount INT) WITH ('connector' = 'datagen');
CREATE VIEW big AS
  SELECT id, amuont * 2 AS a2
  FROM orders;
