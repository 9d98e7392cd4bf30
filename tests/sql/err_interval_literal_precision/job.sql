-- An interval literal's leading field is checked against the qualifier's
-- leading precision, 2 when not written, as Flink's validator does:
-- INTERVAL '99' DAY and INTERVAL '100' DAY(3) are taken, INTERVAL '100'
-- DAY is refused ("Interval field value 100 exceeds precision of DAY(2)
-- field").
CREATE TABLE t (id INT, s TIMESTAMP(3))
  WITH ('connector' = 'filesystem', 'path' = 't.json', 'format' = 'json');
SELECT id, s + INTERVAL '99' DAY, s + INTERVAL '100' DAY(3), s - INTERVAL '100' DAY FROM t;
