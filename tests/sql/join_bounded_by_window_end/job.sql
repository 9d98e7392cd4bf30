-- A regular join of each bid with the maximum price of the 10-second
-- windows that end at most 10 s after it (Nexmark q7's shape). The
-- window aggregation's rows all come with a window_end above its
-- watermark, and the condition caps the window_end a bid can match at its
-- time + 10 s, so a bid is dropped from the join's state once the
-- watermark reaches that. Nothing is late: bids behind the watermark
-- (00:00:18 and 00:00:05 arrive at W = 00:00:35, 00:00:39 at 00:00:47)
-- still join the window rows that are stored, as in a regular join.
CREATE TABLE bid (price BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH (
  'connector' = 'filesystem', 'path' = 'bids.csv', 'format' = 'csv');

SELECT B.price, B.ts, B1.wend
FROM bid B
JOIN (
  SELECT MAX(price) AS maxprice, window_end AS wend
  FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(ts), INTERVAL '10' SECOND))
  GROUP BY window_start, window_end
) B1
ON B.price = B1.maxprice
WHERE B.ts BETWEEN B1.wend - INTERVAL '10' SECOND AND B1.wend;
