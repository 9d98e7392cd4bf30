-- Projection pushdown keeps the columns of the late-records table: the
-- nexmark source produces url, which only late rows carry.
CREATE TABLE bid (auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING, dateTime TIMESTAMP(3), extra STRING,
  WATERMARK FOR dateTime AS dateTime - INTERVAL '4' SECOND) WITH ('connector' = 'nexmark', 'nexmark.table' = 'bid', 'events.num' = '20000');
CREATE TABLE late_bids (auction BIGINT, url STRING, dateTime TIMESTAMP(3), `watermark` TIMESTAMP(3)) WITH ('connector' = 'blackhole');
SET 'weir.late-records.table' = 'late_bids';
EXPLAIN SELECT auction, window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(dateTime), INTERVAL '1' SECOND)) WHERE price > 10 GROUP BY auction, window_start, window_end;
