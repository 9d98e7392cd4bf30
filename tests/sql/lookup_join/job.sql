-- Lookup joins (FOR SYSTEM_TIME AS OF a processing-time attribute): INNER
-- with an expression key (key 2 has two rows: both match), and LEFT with a
-- condition on the table (filters it as it is read) and one on the stream
-- (decides matches: a row that fails it is padded).
CREATE TABLE side_input (key BIGINT, `value` STRING) WITH ('connector' = 'filesystem', 'path' = 'side.csv', 'format' = 'csv');
CREATE TABLE bid (auction BIGINT, bidder BIGINT, price BIGINT, ms BIGINT, p AS PROCTIME())
  WITH ('connector' = 'filesystem', 'path' = 'bids.csv', 'format' = 'csv');
CREATE TABLE inner_out (auction BIGINT, bidder BIGINT, price BIGINT, v STRING) WITH ('connector' = 'print', 'print-identifier' = 'inner');
CREATE TABLE left_out (auction BIGINT, v STRING) WITH ('connector' = 'print', 'print-identifier' = 'left');
INSERT INTO inner_out
SELECT B.auction, B.bidder, B.price, S.`value`
FROM bid B JOIN side_input FOR SYSTEM_TIME AS OF B.p AS S ON MOD(B.auction, 10000) = S.key;
INSERT INTO left_out
SELECT B.auction, S.`value`
FROM (SELECT auction, price, PROCTIME() AS pt FROM bid) B
LEFT JOIN side_input FOR SYSTEM_TIME AS OF B.pt AS S
  ON MOD(B.auction, 10000) = S.key AND S.`value` <> 'deux' AND B.price > 100;
