-- CREATE TABLE: strictly ascending watermark (WATERMARK FOR ts AS ts)
-- oracle: SELECT tumble(bidtime, 600), COUNT(*) FROM bids GROUP BY 1
CREATE TABLE b2 (bid_id INT, item STRING, price INT, supplier STRING, bidtime TIMESTAMP(3), WATERMARK FOR bidtime AS bidtime)
  WITH ('connector' = 'filesystem', 'path' = 'data/bids.csv', 'format' = 'csv');
SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE b2, DESCRIPTOR(bidtime), INTERVAL '10' MINUTES)) GROUP BY window_start, window_end;
