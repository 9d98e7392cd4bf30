-- Nexmark q1, from the reference suite (nexmark/nexmark, module
-- nexmark-flink, queries/q1.sql); the tables come from ddl.sql.
-- weir: DECIMAL(23, 3) -> DECIMAL(18, 3) in the sink: weir's DECIMAL has at
--   most 18 digits (0.908 * price < 10^9 fits).
--
-- Query1: Currency conversion
-- Convert each bid value from dollars to euros. Illustrates a simple transformation.

CREATE TABLE nexmark_q1 (
  auction  BIGINT,
  bidder  BIGINT,
  price  DECIMAL(18, 3),
  `dateTime`  TIMESTAMP(3),
  extra  VARCHAR
) WITH (
  'connector' = 'blackhole'
);

INSERT INTO nexmark_q1
SELECT
    auction,
    bidder,
    0.908 * price as price, -- convert dollar to euro
    `dateTime`,
    extra
FROM bid;
