-- Flink holds every day-time interval as INTERVAL SECOND(3) and refuses a
-- declared leading precision above 3 for any day-time qualifier, not only
-- those that end in SECOND ("DAY_INTERVAL_TYPES precision is not
-- supported: 4"); a year-month one may take up to 10 (YEAR(4) is fine).
CREATE TABLE d (id INT, y INTERVAL YEAR(4) TO MONTH, x INTERVAL DAY(4) TO MINUTE)
  WITH ('connector' = 'print');
INSERT INTO d VALUES (1, INTERVAL '1' YEAR, INTERVAL '1' DAY);
