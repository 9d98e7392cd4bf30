-- Nexmark q4, from the reference suite (nexmark/nexmark, module
-- nexmark-flink, queries/q4.sql); the tables come from ddl.sql.
-- weir: runs as in the reference: a regular join with a time condition (a
--   residual condition, as in Flink) under two updating aggregations.
--
-- Query 4: Average Price for a Category
-- Select the average of the wining bid prices for all auctions in each category.
-- Illustrates complex join and aggregation.

CREATE TABLE nexmark_q4 (
  id BIGINT,
  final BIGINT
) WITH (
  'connector' = 'blackhole'
);

INSERT INTO nexmark_q4
SELECT
    Q.category,
    AVG(Q.final)
FROM (
    SELECT MAX(B.price) AS final, A.category
    FROM auction A, bid B
    WHERE A.id = B.auction AND B.`dateTime` BETWEEN A.`dateTime` AND A.expires
    GROUP BY A.id, A.category
) Q
GROUP BY Q.category;
