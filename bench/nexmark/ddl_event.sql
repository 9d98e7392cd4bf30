-- Nexmark source in the reference's shape: one table holding every event,
-- and the person, auction and bid views over it (the reference's
-- ddl_gen.sql + ddl_views.sql).
--
-- weir has no ROW type, so the nexmark connector's `event` table is the
-- reference's datagen table flattened: person.id becomes person_id and so
-- on, and `dateTime` is the event time the reference computes with CASE.
-- Slower than ddl.sql (every event is generated, then filtered); results
-- are the same. Placeholders as in ddl.sql.

CREATE TABLE datagen (
    event_type INT,
    person_id  BIGINT,
    person_name  VARCHAR,
    person_emailAddress  VARCHAR,
    person_creditCard  VARCHAR,
    person_city  VARCHAR,
    person_state  VARCHAR,
    person_dateTime  TIMESTAMP(3),
    person_extra  VARCHAR,
    auction_id  BIGINT,
    auction_itemName  VARCHAR,
    auction_description  VARCHAR,
    auction_initialBid  BIGINT,
    auction_reserve  BIGINT,
    auction_dateTime  TIMESTAMP(3),
    auction_expires  TIMESTAMP(3),
    auction_seller  BIGINT,
    auction_category  BIGINT,
    auction_extra  VARCHAR,
    bid_auction  BIGINT,
    bid_bidder  BIGINT,
    bid_price  BIGINT,
    bid_channel  VARCHAR,
    bid_url  VARCHAR,
    bid_dateTime  TIMESTAMP(3),
    bid_extra  VARCHAR,
    `dateTime`  TIMESTAMP(3),
    WATERMARK FOR `dateTime` AS `dateTime` - INTERVAL '4' SECOND
) WITH (
    'connector' = 'nexmark',
    'nexmark.table' = 'event',
    'first-event.rate' = '${TPS}',
    'next-event.rate' = '${TPS}',
    'events.num' = '${EVENTS_NUM}',
    'person.proportion' = '${PERSON_PROPORTION}',
    'auction.proportion' = '${AUCTION_PROPORTION}',
    'bid.proportion' = '${BID_PROPORTION}'
);

CREATE VIEW person AS
SELECT
    person_id AS id,
    person_name AS name,
    person_emailAddress AS emailAddress,
    person_creditCard AS creditCard,
    person_city AS city,
    person_state AS state,
    `dateTime`,
    person_extra AS extra
FROM datagen WHERE event_type = 0;

CREATE VIEW auction AS
SELECT
    auction_id AS id,
    auction_itemName AS itemName,
    auction_description AS description,
    auction_initialBid AS initialBid,
    auction_reserve AS reserve,
    `dateTime`,
    auction_expires AS expires,
    auction_seller AS seller,
    auction_category AS category,
    auction_extra AS extra
FROM datagen WHERE event_type = 1;

CREATE VIEW bid AS
SELECT
    bid_auction AS auction,
    bid_bidder AS bidder,
    bid_price AS price,
    bid_channel AS channel,
    bid_url AS url,
    `dateTime`,
    bid_extra AS extra
FROM datagen WHERE event_type = 2;
