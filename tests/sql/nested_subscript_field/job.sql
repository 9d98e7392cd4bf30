-- A field of an array's ROW element: arr[i].f (and deeper, arr[i].f.g), as
-- Flink; NULL when the subscript is outside the array, the element is NULL,
-- or the array is NULL. Usable anywhere an expression is (WHERE, views).
CREATE TABLE orders (id BIGINT, items ARRAY<ROW<sku STRING, n INT, geo ROW<lat DOUBLE>>>)
  WITH ('connector' = 'filesystem', 'path' = 'orders.json', 'format' = 'json');
CREATE VIEW firsts AS SELECT id, items[1].sku AS first_sku, items[2].n * 10 AS second_n, items[1].geo.lat AS lat
FROM orders;
SELECT * FROM firsts;
SELECT id, `items`[2].`sku` FROM orders WHERE items[2].n > 2;
