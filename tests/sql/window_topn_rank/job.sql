-- RANK() and DENSE_RANK() in a window Top-N: equal prices share a rank;
-- RANK skips after a tie (7, 7, 7, 5 rank 1, 1, 1, 4), DENSE_RANK does not
-- (1, 1, 1, 2); every row whose rank is in the bound comes out, so a tie
-- can give more rows than the bound. The early rows (5, 5, 3, 2) rank
-- within 2 at first and are pushed out by the later 7s.
CREATE TABLE bids (item STRING, price INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
  WITH ('connector' = 'filesystem', 'path' = 'bids.json', 'format' = 'json');
CREATE TABLE r2 (ws TIMESTAMP(3), item STRING, price INT, rk BIGINT) WITH ('connector' = 'print', 'print-identifier' = 'rank2');
CREATE TABLE d23 (ws TIMESTAMP(3), item STRING, price INT, rk BIGINT) WITH ('connector' = 'print', 'print-identifier' = 'dense2to3');
CREATE TABLE r4 (item STRING, price INT) WITH ('connector' = 'print', 'print-identifier' = 'rank4');
EXECUTE STATEMENT SET BEGIN
INSERT INTO r2 SELECT window_start, item, price, rk FROM (
  SELECT window_start, window_end, item, price, RANK() OVER (PARTITION BY window_start, window_end ORDER BY price DESC) AS rk
  FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '10' SECOND))) WHERE rk <= 2;
INSERT INTO d23 SELECT window_start, item, price, rk FROM (
  SELECT window_start, window_end, item, price, DENSE_RANK() OVER (PARTITION BY window_start, window_end ORDER BY price DESC) AS rk
  FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '10' SECOND))) WHERE rk >= 2 AND rk <= 3;
INSERT INTO r4 SELECT item, price FROM (
  SELECT *, RANK() OVER (PARTITION BY window_start, window_end ORDER BY price DESC) AS rk
  FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '10' SECOND))) WHERE rk <= 4;
END;
