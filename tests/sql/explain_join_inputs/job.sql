-- EXPLAIN of the projection below joins: only the columns read above a
-- join (items, WHERE, GROUP BY, ON) go into it. Nexmark tables produce only
-- those (columns=...); another input gets a Calc below the join; A.* keeps
-- all of A's columns; an unqualified * keeps everything.
CREATE TABLE auction (
    id BIGINT, itemName VARCHAR, description VARCHAR, initialBid BIGINT, reserve BIGINT,
    `dateTime` TIMESTAMP(3), expires TIMESTAMP(3), seller BIGINT, category BIGINT, extra VARCHAR,
    WATERMARK FOR `dateTime` AS `dateTime` - INTERVAL '4' SECOND
) WITH ('connector' = 'nexmark', 'nexmark.table' = 'auction', 'events.num' = '1000');
CREATE TABLE bid (
    auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR,
    `dateTime` TIMESTAMP(3), extra VARCHAR,
    WATERMARK FOR `dateTime` AS `dateTime` - INTERVAL '4' SECOND
) WITH ('connector' = 'nexmark', 'nexmark.table' = 'bid', 'events.num' = '1000');
CREATE TABLE side (k BIGINT, label STRING, weight INT, note STRING)
  WITH ('connector' = 'filesystem', 'path' = 'side.csv', 'format' = 'csv');
CREATE TABLE o2 (c BIGINT, p BIGINT) WITH ('connector' = 'blackhole');
CREATE TABLE o3 (a BIGINT, b STRING, c BIGINT) WITH ('connector' = 'blackhole');
-- Nexmark q4's inner query: auction id, category, dateTime, expires; bid auction, price, dateTime.
EXPLAIN INSERT INTO o2
SELECT A.category, MAX(B.price) FROM auction A, bid B
WHERE A.id = B.auction AND B.`dateTime` BETWEEN A.`dateTime` AND A.expires
GROUP BY A.id, A.category;
-- A file table and a subquery: a Calc below the join keeps k and label of side (weight only filters).
EXPLAIN INSERT INTO o3
SELECT B.price, S.label, D.n FROM bid B
JOIN side S ON B.bidder = S.k AND S.weight > 2
JOIN (SELECT seller, id AS n, category AS unused FROM auction) D ON B.auction = D.n;
-- A.* keeps all of the auction's columns; the bid still loses what nothing reads.
EXPLAIN SELECT A.*, B.price FROM auction A JOIN bid B ON A.id = B.auction;
-- An unqualified * keeps everything.
EXPLAIN SELECT * FROM auction A JOIN bid B ON A.id = B.auction;
