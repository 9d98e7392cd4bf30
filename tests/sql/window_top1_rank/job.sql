-- Window Top-N of rank 1 over a window aggregation (Flink's form of q5's
-- question): weir filters each batch of the aggregation down to the rows
-- at their window's top (or bottom, ordered ascending) before the ranking,
-- which decides as before: RANK() keeps every tied row, ROW_NUMBER() one,
-- and a NULL sum (DESC puts NULLs last) ranks first only when it is its
-- window's only row.
--
-- TUMBLE 2 s over the rows of bids.csv (watermark at the rows' time):
--   [10:00:00, 10:00:02): counts auction 1: 2, 2: 2, 3: 1; sums 5, 7, 7
--   [10:00:02, 10:00:04): counts 3: 3, 1: 1; sums 2, NULL
--   [10:00:04, 10:00:06): count 2: 1; sum NULL
--   [10:00:10, 10:00:12): count 4: 1; sum 0
CREATE TABLE bid (auction BIGINT, price INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH (
  'connector' = 'filesystem', 'path' = 'bids.csv', 'format' = 'csv');
CREATE VIEW agg AS
  SELECT auction, count(*) AS num, sum(price) AS total, window_start, window_end
  FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(ts), INTERVAL '2' SECOND))
  GROUP BY auction, window_start, window_end;

SELECT 'hot', auction, num, rk, window_start FROM (
  SELECT *, RANK() OVER (PARTITION BY window_start, window_end ORDER BY num DESC) AS rk FROM agg)
WHERE rk <= 1;

SELECT 'cold', auction, num, window_start FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY num) AS rn FROM agg)
WHERE rn = 1;

SELECT 'total', auction, total, window_start FROM (
  SELECT *, DENSE_RANK() OVER (PARTITION BY window_start, window_end ORDER BY total DESC) AS rk FROM agg)
WHERE rk <= 1;
