-- NOT Nexmark: the 10 latest bids of each auction, the commonest Top-N
-- shape ("latest N per key"), without the rank number (a new row is +I, the
-- one it pushes out -D). A bid that is newer than its auction's kept ones
-- ranks first in their list; bids of the same millisecond tie, and a tie
-- ranks after the kept rows. At the default 10 M events a second of event
-- time most bids of an auction share a millisecond: run it with --tps 1000
-- (one event a millisecond) for the shape where new rows rank first.
-- Its figures are reported as "topn_latest".

CREATE TABLE nexmark_topn_latest (
    auction  BIGINT,
    bidder  BIGINT,
    price  BIGINT,
    channel  VARCHAR,
    url  VARCHAR,
    `dateTime`  TIMESTAMP(3),
    extra  VARCHAR
) WITH (
  'connector' = 'blackhole'
);

INSERT INTO nexmark_topn_latest
SELECT auction, bidder, price, channel, url, `dateTime`, extra FROM
(SELECT *, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY `dateTime` DESC) AS rank_number FROM bid)
WHERE rank_number <= 10;
