-- A lookup join written with USING: each bid's key (auction mod 10000)
-- looked up in the side table, LEFT: 10001 -> 1 'one', 10002 -> 2 'two'
-- and 'deux', 10004 -> 4 (no row: NULL), 20003 -> 3 'three'. The
-- unqualified key is the common column (the bid's, in a LEFT join).
CREATE TABLE side_input (key BIGINT, `value` STRING) WITH ('connector' = 'filesystem', 'path' = 'side.csv', 'format' = 'csv');
CREATE TABLE bid (auction BIGINT, bidder BIGINT, price BIGINT, ms BIGINT, p AS PROCTIME())
  WITH ('connector' = 'filesystem', 'path' = 'bids.csv', 'format' = 'csv');
SELECT B.auction, key, S.`value`
FROM (SELECT auction, MOD(auction, 10000) AS key, p FROM bid) B LEFT JOIN side_input FOR SYSTEM_TIME AS OF B.p AS S USING (key);
