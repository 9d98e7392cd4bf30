-- Projection, WHERE and expressions over CSV input.
CREATE TABLE orders (
  id INT,
  customer STRING,
  amount DECIMAL(10, 2),
  qty INT,
  ts TIMESTAMP(3)
) WITH ('connector' = 'filesystem', 'path' = 'orders.csv', 'format' = 'csv');

SELECT
  id,
  UPPER(customer) AS who,
  amount * qty AS total,
  CASE WHEN qty >= 10 THEN 'bulk' WHEN qty IS NULL THEN 'unknown' ELSE 'single' END AS kind,
  COALESCE(CAST(qty AS STRING), '-') AS qty_text,
  EXTRACT(HOUR FROM ts) AS hr
FROM orders
WHERE customer LIKE 'a%' OR id IN (4, 5) OR amount BETWEEN 100 AND 200;
