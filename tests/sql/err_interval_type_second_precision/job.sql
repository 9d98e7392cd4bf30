-- A day-time interval type takes a leading precision of at most 3 (Flink
-- refuses DAY(4) TO SECOND when it converts the declared type, as it does
-- for every day-time qualifier: err_interval_day_precision).
CREATE TABLE d (id INT, x INTERVAL DAY(4) TO SECOND(3))
  WITH ('connector' = 'print');
INSERT INTO d VALUES (1, INTERVAL '1' DAY);
