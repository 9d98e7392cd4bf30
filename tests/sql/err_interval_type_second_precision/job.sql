-- An interval type that ends in SECOND takes a leading precision of at most
-- 3 (Flink refuses DAY(4) TO SECOND when it converts the declared type);
-- DAY(4) alone or DAY(4) TO MINUTE are taken (interval_qualifier_types).
CREATE TABLE d (id INT, x INTERVAL DAY(4) TO SECOND(3))
  WITH ('connector' = 'print');
INSERT INTO d VALUES (1, INTERVAL '1' DAY);
