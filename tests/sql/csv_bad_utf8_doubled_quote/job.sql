-- Invalid UTF-8 in a quoted CSV field with doubled quotes is located at
-- the bad byte itself, as in any other field: each doubled quote before it
-- counts as the two bytes it is in the file (it was the field's start).
CREATE TABLE t (id INT, s STRING)
WITH ('connector' = 'filesystem', 'path' = 'in.csv', 'format' = 'csv',
      'source.bad-input' = 'dead-letter', 'source.dead-letter.path' = 'dead.jsonl');
SELECT * FROM t;
