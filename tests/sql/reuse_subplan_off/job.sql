SET 'table.optimizer.reuse-sub-plan-enabled' = 'false';
-- reuse_subplan with sub-plan reuse off: the same rows.
CREATE TABLE bid (auction BIGINT, price BIGINT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = 'bids.csv', 'format' = 'csv');
CREATE VIEW counts AS
  SELECT auction, COUNT(*) AS num, window_start, window_end
  FROM TABLE(HOP(TABLE bid, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '4' SECOND))
  GROUP BY auction, window_start, window_end;
SELECT * FROM counts UNION ALL SELECT * FROM counts;
SELECT a.auction, b.auction, a.num, a.window_start
FROM counts a JOIN counts b
  ON a.window_start = b.window_start AND a.num = b.num AND a.auction < b.auction;
-- Equal subqueries written out, with different projections above them (as
-- in Nexmark q5): the aggregation is shared, the projections are not.
SELECT x.auction, x.n, y.total
FROM (SELECT auction, COUNT(*) AS n, window_start AS ws
      FROM TABLE(HOP(TABLE bid, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '4' SECOND))
      GROUP BY auction, window_start, window_end) x
JOIN (SELECT COUNT(*) AS total, window_start AS ws2, auction AS a2
      FROM TABLE(HOP(TABLE bid, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '4' SECOND))
      GROUP BY auction, window_start, window_end) y
  ON x.ws = y.ws2 AND x.auction = y.a2
WHERE x.auction = 1;
