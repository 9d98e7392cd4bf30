-- Nexmark q13, from the reference suite (nexmark/nexmark, module
-- nexmark-flink, queries/q13.sql); the tables come from ddl.sql.
-- weir: the side input's connector options are weir's filesystem connector
--   (the reference uses the legacy 'connector.type' keys and a file under
--   ${FLINK_HOME}); bench/nexmark/side_input.csv holds keys 0..9999 with the
--   value 'side-<key>'. The join is a processing-time lookup join.
--
-- Query 13: Bounded Side Input Join (Not in original suite)
-- Joins a stream to a bounded side input, modeling basic stream enrichment.

CREATE TABLE side_input (
  key BIGINT,
  `value` VARCHAR
) WITH (
  'connector' = 'filesystem',
  'path' = '${NEXMARK_DATA}/side_input.csv',
  'format' = 'csv'
);

CREATE TABLE nexmark_q13 (
  auction  BIGINT,
  bidder  BIGINT,
  price  BIGINT,
  `dateTime`  TIMESTAMP(3),
  `value`  VARCHAR
) WITH (
  'connector' = 'blackhole'
);

INSERT INTO nexmark_q13
SELECT
    B.auction,
    B.bidder,
    B.price,
    B.`dateTime`,
    S.`value`
FROM (SELECT *, PROCTIME() as p_time FROM bid) B
JOIN side_input FOR SYSTEM_TIME AS OF B.p_time AS S
ON mod(B.auction, 10000) = S.key;
