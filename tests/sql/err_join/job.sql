CREATE TABLE a (k STRING) WITH ('connector' = 'filesystem', 'path' = 'a.csv', 'format' = 'csv');
CREATE TABLE b (k STRING) WITH ('connector' = 'filesystem', 'path' = 'b.csv', 'format' = 'csv');
SELECT a.k FROM a JOIN b ON a.k || b.k;
