-- EXPLAIN of a regular join whose state is bounded by the watermark: the
-- right side is a window aggregation (every row it sends has a
-- window_end above its watermark), and the condition caps the window_end
-- a bid can match at its time + 10 s, so a bid is dropped at W >= ts + 10 s.
-- A LEFT join keeps every row (its padding needs them), so it says nothing.
CREATE TABLE bid (price BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH (
  'connector' = 'filesystem', 'path' = 'bids.csv', 'format' = 'csv');
CREATE VIEW maxes AS
  SELECT MAX(price) AS maxprice, window_end AS wend
  FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(ts), INTERVAL '10' SECOND))
  GROUP BY window_start, window_end;
EXPLAIN SELECT B.price, B.ts, B1.wend FROM bid B JOIN maxes B1
  ON B.price = B1.maxprice WHERE B.ts BETWEEN B1.wend - INTERVAL '10' SECOND AND B1.wend;
EXPLAIN SELECT B.price, B1.wend FROM maxes B1 JOIN bid B
  ON B.price = B1.maxprice AND B1.wend >= B.ts AND B1.wend < B.ts + INTERVAL '10' SECOND;
EXPLAIN SELECT B.price, B.ts, B1.wend FROM bid B LEFT JOIN maxes B1
  ON B.price = B1.maxprice AND B.ts BETWEEN B1.wend - INTERVAL '10' SECOND AND B1.wend;
