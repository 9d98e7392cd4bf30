CREATE TABLE side_input (key BIGINT, v STRING) WITH ('connector' = 'filesystem', 'path' = 'side.csv', 'format' = 'csv');
CREATE TABLE bid (auction BIGINT, bidder BIGINT, price BIGINT, ms BIGINT, ts AS TO_TIMESTAMP_LTZ(ms, 3), WATERMARK FOR ts AS ts)
  WITH ('connector' = 'filesystem', 'path' = 'bids.csv', 'format' = 'csv');
SELECT B.auction, S.v FROM bid B JOIN side_input FOR SYSTEM_TIME AS OF B.ts AS S ON B.auction = S.key;
