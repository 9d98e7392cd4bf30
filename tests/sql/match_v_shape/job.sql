-- MATCH_RECOGNIZE: the falling then rising price ("V shape") of Flink's
-- Pattern Recognition page. Hand-derived: from 10:00:04 (25) the price
-- falls to 18, 15, 14 (PRICE_DOWN+, each below the one before) and rises to
-- 24 at 10:00:08 (PRICE_UP: above LAST(PRICE_DOWN.price, 1) = 15); no start
-- before 10:00:04 falls at once, and after skipping to 10:00:08 the last
-- fall (25 -> 19) has no rise before the input ends.
CREATE TABLE ticker (symbol STRING, price INT, tax INT, rowtime TIMESTAMP(3),
  WATERMARK FOR rowtime AS rowtime - INTERVAL '1' SECOND)
WITH ('connector' = 'filesystem', 'path' = 'ticker.csv', 'format' = 'csv');
SELECT * FROM ticker MATCH_RECOGNIZE (
  PARTITION BY symbol
  ORDER BY rowtime
  MEASURES
    START_ROW.rowtime AS start_tstamp,
    LAST(PRICE_DOWN.rowtime) AS bottom_tstamp,
    LAST(PRICE_UP.rowtime) AS end_tstamp
  ONE ROW PER MATCH
  AFTER MATCH SKIP TO LAST PRICE_UP
  PATTERN (START_ROW PRICE_DOWN+ PRICE_UP)
  DEFINE
    PRICE_DOWN AS
      (LAST(PRICE_DOWN.price, 1) IS NULL AND PRICE_DOWN.price < START_ROW.price) OR
        PRICE_DOWN.price < LAST(PRICE_DOWN.price, 1),
    PRICE_UP AS PRICE_UP.price > LAST(PRICE_DOWN.price, 1)
) MR;
