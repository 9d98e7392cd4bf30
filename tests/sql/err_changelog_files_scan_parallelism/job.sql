-- A changelog in files is one history, read in order by one subtask: a
-- row's -D must not overtake its +I from another file or byte range.
CREATE TABLE h (id INT, v STRING) WITH ('connector' = 'filesystem', 'path' = 'in.json',
  'format' = 'debezium-json', 'scan.parallelism' = '2');
CREATE TABLE o (id INT, v STRING) WITH ('connector' = 'print');
INSERT INTO o SELECT id, v FROM h;
