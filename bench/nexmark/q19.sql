-- Nexmark q19, from the reference suite (nexmark/nexmark, module
-- nexmark-flink, queries/q19.sql); the tables come from ddl.sql.
-- weir: runs as in the reference (Top-N and deduplication: docs/sql.md).
--
-- Query 19: Auction TOP-10 Price (Not in original suite)
-- What's the top price 10 bids of an auction?
-- Illustrates a TOP-N query.

CREATE TABLE nexmark_q19 (
    auction  BIGINT,
    bidder  BIGINT,
    price  BIGINT,
    channel  VARCHAR,
    url  VARCHAR,
    `dateTime`  TIMESTAMP(3),
    extra  VARCHAR,
    rank_number  BIGINT
) WITH (
  'connector' = 'blackhole'
);

INSERT INTO nexmark_q19
SELECT * FROM
(SELECT *, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY price DESC) AS rank_number FROM bid)
WHERE rank_number <= 10;
