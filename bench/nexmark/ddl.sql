-- Nexmark source tables for weir: the reference's person, auction and bid
-- views, declared as three tables of the nexmark connector.
--
-- The reference declares one `datagen` table with ROW columns (event_type,
-- person, auction, bid) and three views `WHERE event_type = k` over it
-- (ddl_gen.sql + ddl_views.sql). weir has no ROW type; ddl_event.sql keeps
-- the reference's shape with the flattened `event` table. This file is the
-- fast path: each table reads the same event stream (same options, same
-- seed, same numbering) but only generates the rows of its own kind
-- ('nexmark.table'), so a bid-only query never builds people or auctions.
-- The three tables are one watermark-alignment group (max drift 1 s): like
-- the reference's single source they advance together, so a join of two of
-- them (q3, q8, ...) does not hold state for whatever the faster generator
-- read ahead of the slower one.
--
-- ${TPS}, ${EVENTS_NUM}, ${PERSON_PROPORTION}, ${AUCTION_PROPORTION} and
-- ${BID_PROPORTION} are substituted by bench/run_nexmark.sh, as the
-- reference's runner does; 'events.num' counts events of all kinds.

CREATE TABLE person (
    id  BIGINT,
    name  VARCHAR,
    emailAddress  VARCHAR,
    creditCard  VARCHAR,
    city  VARCHAR,
    state  VARCHAR,
    `dateTime` TIMESTAMP(3),
    extra  VARCHAR,
    WATERMARK FOR `dateTime` AS `dateTime` - INTERVAL '4' SECOND
) WITH (
    'connector' = 'nexmark',
    'nexmark.table' = 'person',
    'first-event.rate' = '${TPS}',
    'next-event.rate' = '${TPS}',
    'events.num' = '${EVENTS_NUM}',
    'person.proportion' = '${PERSON_PROPORTION}',
    'auction.proportion' = '${AUCTION_PROPORTION}',
    'bid.proportion' = '${BID_PROPORTION}',
    'scan.watermark.alignment.group' = 'nexmark',
    'scan.watermark.alignment.max-drift' = '1s'
);

CREATE TABLE auction (
    id  BIGINT,
    itemName  VARCHAR,
    description  VARCHAR,
    initialBid  BIGINT,
    reserve  BIGINT,
    `dateTime`  TIMESTAMP(3),
    expires  TIMESTAMP(3),
    seller  BIGINT,
    category  BIGINT,
    extra  VARCHAR,
    WATERMARK FOR `dateTime` AS `dateTime` - INTERVAL '4' SECOND
) WITH (
    'connector' = 'nexmark',
    'nexmark.table' = 'auction',
    'first-event.rate' = '${TPS}',
    'next-event.rate' = '${TPS}',
    'events.num' = '${EVENTS_NUM}',
    'person.proportion' = '${PERSON_PROPORTION}',
    'auction.proportion' = '${AUCTION_PROPORTION}',
    'bid.proportion' = '${BID_PROPORTION}',
    'scan.watermark.alignment.group' = 'nexmark',
    'scan.watermark.alignment.max-drift' = '1s'
);

CREATE TABLE bid (
    auction  BIGINT,
    bidder  BIGINT,
    price  BIGINT,
    channel  VARCHAR,
    url  VARCHAR,
    `dateTime`  TIMESTAMP(3),
    extra  VARCHAR,
    WATERMARK FOR `dateTime` AS `dateTime` - INTERVAL '4' SECOND
) WITH (
    'connector' = 'nexmark',
    'nexmark.table' = 'bid',
    'first-event.rate' = '${TPS}',
    'next-event.rate' = '${TPS}',
    'events.num' = '${EVENTS_NUM}',
    'person.proportion' = '${PERSON_PROPORTION}',
    'auction.proportion' = '${AUCTION_PROPORTION}',
    'bid.proportion' = '${BID_PROPORTION}',
    'scan.watermark.alignment.group' = 'nexmark',
    'scan.watermark.alignment.max-drift' = '1s'
);
