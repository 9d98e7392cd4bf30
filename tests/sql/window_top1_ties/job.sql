-- The rows of a window aggregation that reach their window's maximum,
-- written as a join with the MAX of the same aggregation per window
-- (Nexmark q5's shape). COUNT(*) and COUNT(price) are integers NOT NULL:
-- weir plans those joins as a window Top-1 with ties (RANK() <= 1 per
-- window), so every tied row comes out; SUM(price) is nullable (a window
-- whose prices are all NULL has a NULL sum and maximum, and matches
-- nothing), so that join stays a window join. The results are the same
-- either way; this case checks them by hand.
--
-- TUMBLE 2 s, watermark at the rows' time:
--   [10:00:00, 10:00:02): auction 1 twice (prices 5, NULL), 2 twice (3, 4),
--                         3 once (7): counts 2, 2, 1; COUNT(price) 1, 2, 1;
--                         sums 5, 7, 7
--   [10:00:02, 10:00:04): auction 3 three times (1, 1, NULL), 1 once (NULL):
--                         counts 3, 1; COUNT(price) 2, 0; sums 2, NULL
--   [10:00:04, 10:00:06): auction 2 once (NULL): count 1, COUNT(price) 0,
--                         sum NULL (the maximum is NULL: no row)
--   [10:00:10, 10:00:12): auction 4 once (0): 1, 1, 0
CREATE TABLE bid (auction BIGINT, price INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH (
  'connector' = 'filesystem', 'path' = 'bids.csv', 'format' = 'csv');

SELECT 'count', A.auction, A.num, M.maxn, A.starttime, M.endtime
FROM (SELECT auction, count(*) AS num, window_start AS starttime, window_end AS endtime
        FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(ts), INTERVAL '2' SECOND))
        GROUP BY auction, window_start, window_end) AS A
JOIN (SELECT max(C.num) AS maxn, C.starttime, C.endtime
        FROM (SELECT count(*) AS num, window_start AS starttime, window_end AS endtime
                FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(ts), INTERVAL '2' SECOND))
                GROUP BY auction, window_start, window_end) AS C
        GROUP BY C.starttime, C.endtime) AS M
  ON A.starttime = M.starttime AND A.endtime = M.endtime AND A.num >= M.maxn;

SELECT 'count_price', A.auction, A.num, M.maxn, A.starttime
FROM (SELECT auction, count(price) AS num, window_start AS starttime, window_end AS endtime
        FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(ts), INTERVAL '2' SECOND))
        GROUP BY auction, window_start, window_end) AS A
JOIN (SELECT endtime, max(num) AS maxn, starttime
        FROM (SELECT count(price) AS num, window_start AS starttime, window_end AS endtime
                FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(ts), INTERVAL '2' SECOND))
                GROUP BY auction, window_start, window_end)
        GROUP BY starttime, endtime) AS M
  ON M.endtime = A.endtime AND M.starttime = A.starttime AND M.maxn = A.num;

SELECT 'sum', A.auction, A.num, M.maxn, A.starttime
FROM (SELECT auction, sum(price) AS num, window_start AS starttime, window_end AS endtime
        FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(ts), INTERVAL '2' SECOND))
        GROUP BY auction, window_start, window_end) AS A
JOIN (SELECT max(num) AS maxn, starttime, endtime
        FROM (SELECT sum(price) AS num, window_start AS starttime, window_end AS endtime
                FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(ts), INTERVAL '2' SECOND))
                GROUP BY auction, window_start, window_end)
        GROUP BY starttime, endtime) AS M
  ON A.starttime = M.starttime AND A.endtime = M.endtime AND A.num >= M.maxn;
