-- ARRAY, MAP and ROW columns need a format that nests (json): csv refuses
-- them, naming the column and its type.
CREATE TABLE t (id INT, tags ARRAY<STRING>) WITH ('connector' = 'filesystem', 'path' = 't.csv', 'format' = 'csv');
SELECT id, tags[1] FROM t;
