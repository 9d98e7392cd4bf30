CREATE TABLE a (k STRING, x INT) WITH ('connector' = 'filesystem', 'path' = 'a.csv', 'format' = 'csv');
CREATE TABLE b (k STRING, y INT) WITH ('connector' = 'filesystem', 'path' = 'b.csv', 'format' = 'csv');
CREATE TABLE out_csv (x INT, y INT) WITH ('connector' = 'filesystem', 'path' = 'out', 'format' = 'csv');
INSERT INTO out_csv SELECT a.x, b.y FROM a LEFT JOIN b ON a.k = b.k;
