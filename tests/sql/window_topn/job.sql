-- Window Top-N and window deduplication (Flink's): ranked per window,
-- emitted once when the window ends, append-only (a CSV sink takes it).
-- The bid (2, 60, 1500) arrives after its window ended: late, dropped.
CREATE TABLE bid (item BIGINT, price BIGINT, ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ms, 3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
  WITH ('connector' = 'filesystem', 'path' = 'bids.csv', 'format' = 'csv');
CREATE TABLE top2 (window_start TIMESTAMP(3), window_end TIMESTAMP(3), item BIGINT, price BIGINT, rn BIGINT)
  WITH ('connector' = 'print', 'print-identifier' = 'top2');
CREATE TABLE best (window_start TIMESTAMP(3), window_end TIMESTAMP(3), item BIGINT, total BIGINT)
  WITH ('connector' = 'print', 'print-identifier' = 'best-item');
CREATE TABLE last_bid (window_start TIMESTAMP(3), window_end TIMESTAMP(3), item BIGINT, price BIGINT, ms BIGINT)
  WITH ('connector' = 'print', 'print-identifier' = 'last-bid');
-- the two highest bids of each 10 s window, straight from the window table function
INSERT INTO top2
SELECT window_start, window_end, item, price, rn FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY price DESC) AS rn
  FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(ts), INTERVAL '10' SECOND))
) WHERE rn <= 2;
-- the item with the highest total of each window, after a window aggregation
INSERT INTO best
SELECT window_start, window_end, item, total FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY total DESC, item) AS rn
  FROM (SELECT window_start, window_end, item, SUM(price) AS total
        FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(ts), INTERVAL '10' SECOND))
        GROUP BY window_start, window_end, item)
) WHERE rn <= 1;
-- window deduplication: the last bid of each item in each window
INSERT INTO last_bid
SELECT window_start, window_end, item, price, ms FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end, item ORDER BY ts DESC) AS rn
  FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(ts), INTERVAL '10' SECOND))
) WHERE rn = 1;
