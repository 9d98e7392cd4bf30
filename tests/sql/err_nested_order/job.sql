-- ARRAY, MAP and ROW values compare with = and <> only: there is no order
-- between them, as in Flink.
CREATE TABLE t (id INT, tags ARRAY<STRING>) WITH ('connector' = 'filesystem', 'path' = 't.json', 'format' = 'json');
SELECT id FROM t WHERE tags < ARRAY['b'];
