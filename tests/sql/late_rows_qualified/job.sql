-- weir.late-records.table may name a table of another database (db.t or
-- catalog.db.t), also when projection pushdown prunes the source's
-- columns: the nexmark source still produces url, which only the late rows
-- carry (db1.late_bids has it; the late_bids of the current database,
-- which the name does not mean, has not).
CREATE DATABASE db1;
CREATE TABLE bid (auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING, dateTime TIMESTAMP(3), extra STRING,
  WATERMARK FOR dateTime AS dateTime - INTERVAL '4' SECOND) WITH ('connector' = 'nexmark', 'nexmark.table' = 'bid', 'events.num' = '20000');
CREATE TABLE late_bids (auction BIGINT) WITH ('connector' = 'blackhole');
CREATE TABLE db1.late_bids (auction BIGINT, url STRING, dateTime TIMESTAMP(3), `watermark` TIMESTAMP(3)) WITH ('connector' = 'blackhole');
SET 'weir.late-records.table' = 'default_catalog.db1.late_bids';
EXPLAIN SELECT auction, window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE bid, DESCRIPTOR(dateTime), INTERVAL '1' SECOND)) WHERE price > 10 GROUP BY auction, window_start, window_end;
